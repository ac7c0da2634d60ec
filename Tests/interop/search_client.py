"""A stock grpcio client of vicontinue.v1.VisualSearch, with stubs generated from proto/search.proto.

Usage: search_client.py TARGET
Runs a sheet query, a capture, the next page, a capture with one value per facet, one with one attribute facet and a
resolve, printing one line per step
("PASS step" / "FAIL step: why"); exits 1 if any step failed.
"""

import sys
import traceback

import grpc

import stubs

((pb, pb_grpc),) = stubs.load("search.proto")


def main():
    target = sys.argv[1]
    failed = 0
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.VisualSearchStub(channel)
        descriptor = pb.Descriptor(labels=[pb.Label(text="rock", confidence=0.9)], source=pb.SOURCE_CAMERA)

        def query():
            response = stub.Query(pb.QueryRequest(descriptor=descriptor, limit=5), timeout=30)
            assert 0 < len(response.results) <= 5, response
            assert all(r.deep_link for r in response.results), response

        def capture_and_page():
            state = stub.Capture(pb.CaptureRequest(descriptor=descriptor, page_size=3), timeout=30)
            assert len(state.session_id) == 32 and state.next_page_token, state
            page = stub.Search(
                pb.SearchRequest(session_id=state.session_id, page_token=state.next_page_token), timeout=30
            )
            first = {(r.entity.type, r.entity.id) for r in state.results}
            second = {(r.entity.type, r.entity.id) for r in page.results}
            assert first and second and not first & second, (first, second)

        def facet_limit():
            full = stub.Capture(pb.CaptureRequest(descriptor=descriptor), timeout=30)
            capped = stub.Capture(pb.CaptureRequest(descriptor=descriptor, max_facet_values=1), timeout=30)
            wide = [f for f in full.facets if len(f.values) > 1]
            assert wide, full.facets
            for facet in capped.facets:
                whole = next(f for f in full.facets if f.name == facet.name)
                assert list(facet.values) == list(whole.values[:1]), (facet, whole)
                assert facet.more_values == len(whole.values) - 1 + whole.more_values, (facet, whole)

        def facet_cap():
            # Type and category come first; the attribute facets after them are capped. Concerts
            # have a city, a date and a price.
            concerts = pb.Descriptor(labels=[pb.Label(text="concert", confidence=0.9)], source=pb.SOURCE_CAMERA)
            full = stub.Capture(pb.CaptureRequest(descriptor=concerts), timeout=30)
            attributes = [f.name for f in full.facets[2:]]
            assert len(attributes) >= 2 and not full.more_facets, full.facets
            capped = stub.Capture(pb.CaptureRequest(descriptor=concerts, max_facets=1), timeout=30)
            kept = [f.name for f in capped.facets[2:]]
            assert len(kept) == 1 and sorted(kept + list(capped.more_facets)) == sorted(attributes), capped
            # The one kept is the one whose values count the most hits.
            weight = {f.name: sum(v.count for v in f.values) for f in full.facets[2:]}
            assert all(weight[kept[0]] >= weight[name] for name in capped.more_facets), (kept, weight)
            # An included facet takes a place first; the other place goes to the one that counts the most.
            opened = stub.Search(
                pb.SearchRequest(session_id=capped.session_id, max_facets=2, include_facets=[capped.more_facets[0]]),
                timeout=30)
            assert [f.name for f in opened.facets[2:]] == sorted(kept + [capped.more_facets[0]]), opened.facets

        def resolve():
            destination = stub.Resolve(pb.ResolveRequest(url="music://album/little-morning"), timeout=30)
            assert destination.screen == "album" and destination.entity.id == "little-morning", destination

        def refused():
            try:
                stub.Resolve(pb.ResolveRequest(url="javascript:alert(1)"), timeout=30)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error
                return
            raise AssertionError("javascript: was not refused")

        for name, step in [("query", query), ("capture_and_page", capture_and_page), ("facet_limit", facet_limit),
                           ("facet_cap", facet_cap), ("resolve", resolve), ("refused", refused)]:
            try:
                step()
                print(f"PASS {name}", flush=True)
            except Exception as error:  # report every step
                failed += 1
                print(f"FAIL {name}: {''.join(traceback.format_exception_only(type(error), error)).strip()}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
