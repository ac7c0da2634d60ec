"""The "rotate 15° + perspective" perturbation: a poster photographed on a wall, slightly from one side.

The picture is turned (bench/image's rotate, which already cuts away the empty corners), then a
trapezoid inside it is stretched to the full frame: one vertical edge keeps its height while the
other is seen 10 % shorter, as the far side of a poster is. Sampling a quadrilateral that lies
inside the picture is what keeps the corners filled.
"""
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "image"))
from gallery import rotate  # noqa: E402

FAR_EDGE_SHRINK = 0.10  # the far edge looks this much shorter than the near one
SIDE_MARGIN = 0.03  # a little of the near and far sides is cut, as a hand-held frame would


def perspective_coefficients(output_corners, input_corners):
    """The 8 coefficients PIL's PERSPECTIVE transform wants: output (x, y) → input (x', y')."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(output_corners, input_corners):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    return np.linalg.solve(np.array(rows, dtype=np.float64), np.array(rhs, dtype=np.float64)).tolist()


def keystone(img, far_side_right=True):
    w, h = img.size
    near, far = 0.0, FAR_EDGE_SHRINK / 2 * h
    left, right = (near, far) if far_side_right else (far, near)
    mx = SIDE_MARGIN * w
    inside = [(mx, left), (w - mx, right), (w - mx, h - right), (mx, h - left)]
    frame = [(0, 0), (w, 0), (w, h), (0, h)]
    return img.transform((w, h), Image.PERSPECTIVE, perspective_coefficients(frame, inside), Image.BICUBIC)


def rotate_with_perspective(img, degrees, index):
    """Turned by `degrees`, then seen from the left or the right (alternating with `index`)."""
    return keystone(rotate(img, degrees), far_side_right=index % 2 == 0)
