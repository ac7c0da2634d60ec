"""The reference web shell in a real browser: headless Chromium driven by selenium through
chromedriver, against `vi-continue serve`.

Usage: web_shell_browser.py HOST:PORT
Prints "PASS step" / "FAIL step: why" per step; exits 1 if any step failed (2 when no browser).
"""

import os
import sys

import peer_steps
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1200,900"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    base = "http://" + sys.argv[1]
    try:
        driver = browser()
    except WebDriverException as error:
        print("FAIL browser:", str(error).splitlines()[0])
        sys.exit(2)
    wait = WebDriverWait(driver, 15)
    by_test_id = lambda name: (By.CSS_SELECTOR, f'[data-testid="{name}"]')

    def sheet_from_labels_in_the_url():
        driver.get(base + "/?labels=jazz,vienna")
        wait.until(EC.presence_of_element_located(by_test_id("result")))
        results = driver.find_elements(*by_test_id("result"))
        assert 1 <= len(results) <= 10, len(results)
        titles = [r.find_element(By.CLASS_NAME, "title").text for r in results]
        assert titles[0] == "Jazz Essentials" or any("Jazz" in t for t in titles), titles
        # Several results: thumbnails, not full images.
        assert not driver.find_elements(By.CSS_SELECTOR, "#results img.full"), "full images in a list"

    def a_tap_resolves_to_its_screen():
        driver.find_elements(*by_test_id("result"))[0].click()
        details = wait.until(EC.visibility_of_element_located((By.ID, "destination-details")))
        text = details.text
        assert "Screen" in text and "music://" in text, text  # the screen and its canonical link

    def one_result_shows_its_full_image():
        driver.get(base + "/?labels=little%20morning")
        wait.until(EC.presence_of_element_located(by_test_id("result")))
        results = driver.find_elements(*by_test_id("result"))
        if len(results) == 1:
            image = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#results img.full")))
            wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
        else:
            assert driver.find_elements(By.CSS_SELECTOR, "#results img.thumbnail"), "no thumbnails"

    def more_results_is_never_blank():
        driver.get(base + "/?labels=rock")
        wait.until(EC.element_to_be_clickable(by_test_id("more-results"))).click()
        wait.until(EC.presence_of_element_located(by_test_id("facet")))
        assert driver.find_elements(*by_test_id("chip")), "no label chips"
        assert driver.find_elements(By.CSS_SELECTOR, "#search-results li"), "no results"
        total = driver.find_element(By.ID, "total").text
        assert "result" in total, total

    def a_facet_filters_the_results():
        before = driver.find_element(By.ID, "total").text
        type_facet = driver.find_element(By.CSS_SELECTOR, '[data-testid="facet"][data-facet="type"]')
        boxes = type_facet.find_elements(By.CSS_SELECTOR, "input[type=checkbox]")
        counts = [int(c.text) for c in type_facet.find_elements(By.CLASS_NAME, "count")]
        smallest = counts.index(min(counts))
        boxes[smallest].click()
        wait.until(lambda d: d.find_element(By.ID, "total").text != before)
        after = driver.find_element(By.ID, "total").text
        assert after.startswith(str(counts[smallest])), (before, after, counts)

    def next_page_appends():
        driver.get(base + "/?labels=rock")
        wait.until(EC.element_to_be_clickable(by_test_id("more-results"))).click()
        wait.until(EC.presence_of_element_located(by_test_id("facet")))
        rows = len(driver.find_elements(By.CSS_SELECTOR, "#search-results li"))
        button = driver.find_element(By.ID, "next-page")
        if button.is_displayed():
            button.click()
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#search-results li")) > rows)

    def labels_matching_nothing_still_open_a_search():
        driver.get(base + "/?labels=zzzqqq")
        wait.until(EC.visibility_of_element_located((By.ID, "empty")))
        driver.find_element(*by_test_id("more-results")).click()
        wait.until(lambda d: d.find_elements(*by_test_id("facet")) or d.find_elements(By.CSS_SELECTOR, "#browse-categories li"))

    def a_picked_photo_finds_its_cover():
        # A camera-like shot of a demo cover, picked in the file dialog: the browser reduces it
        # and sends its pixels; the sheet answers with the album it shows.
        photo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "demo", "photos",
                                             "lost-waves--low-quality.jpg"))
        driver.get(base + "/")
        picker = driver.find_element(By.ID, "image-file")
        driver.execute_script("arguments[0].hidden = false", picker)
        picker.send_keys(photo)
        wait.until(EC.presence_of_element_located(by_test_id("result")))
        titles = [r.find_element(By.CLASS_NAME, "title").text for r in driver.find_elements(*by_test_id("result"))]
        assert titles[0] == "Lost Waves", titles
        assert driver.find_element(By.ID, "image-preview").is_displayed()

    def keyboard_only():
        driver.get(base + "/")
        field = driver.find_element(By.ID, "labels")
        field.send_keys("jazz", Keys.ENTER)
        wait.until(EC.presence_of_element_located(by_test_id("result")))
        first = driver.find_elements(*by_test_id("result"))[0]
        driver.execute_script("arguments[0].focus()", first)
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.ID, "destination-details")))

    def readable_at_phone_width():
        driver.set_window_size(390, 844)
        driver.get(base + "/?labels=rock")
        wait.until(EC.element_to_be_clickable(by_test_id("more-results"))).click()
        wait.until(EC.presence_of_element_located(by_test_id("facet")))
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{overflow} px wider than the screen"
        driver.set_window_size(1200, 900)

    steps = (sheet_from_labels_in_the_url, a_tap_resolves_to_its_screen, one_result_shows_its_full_image,
             more_results_is_never_blank, a_facet_filters_the_results, next_page_appends,
             labels_matching_nothing_still_open_a_search, a_picked_photo_finds_its_cover, keyboard_only,
             readable_at_phone_width)
    try:
        failed = peer_steps.run(steps)
    finally:
        driver.quit()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
