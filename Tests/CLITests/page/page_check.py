#!/usr/bin/env python3
"""Drives haul's page in headless Chromium (PageBrowserTests.swift).

usage: page_check.py ADDRESS HAUL SOCKET OUTDIR SLOW_ID FAILED_ID URL...

ADDRESS is what `haul page` printed (with #token=...). The page must list the daemon's
jobs, drop the token from the address, add URL... as a job through its form, pause and
resume job SLOW_ID with its buttons, show FAILED_ID's failed entries with their codes,
move the new job up, show a visible focus ring, fit 375 px without horizontal scrolling,
and send no request anywhere but the daemon (every other host resolves to nothing).
Screenshots go to OUTDIR and /tmp/haul-page-{wide,narrow}.png. Prints "ok" at the end.
"""
import base64
import json
import shutil
import subprocess
import sys
import time
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

address, haul, socket, outdir, slow_id, failed_id, *new_urls = sys.argv[1:]
origin = "{0.scheme}://{0.netloc}".format(urlsplit(address))


def fail(message):
    raise SystemExit("page_check: " + message)


def until(what, condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    fail("timed out waiting for " + what)


def daemon_jobs():
    """The daemon's own list, from `haul jobs --json`."""
    out = subprocess.run([haul, "jobs", "--json", "--socket", socket], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def daemon_state(job_id):
    return next((j["state"] for j in daemon_jobs() if j["id"] == job_id), None)


def screenshot(driver, name):
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return document.documentElement.clientWidth")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    path = outdir + "/haul-page-" + name + ".png"
    with open(path, "wb") as file:
        file.write(base64.b64decode(shot["data"]))
    shutil.copyfile(path, "/tmp/haul-page-" + name + ".png")


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in [
    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
    "--window-size=1280,900", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-default-apps",
    "--disable-extensions", '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"),
                          options=options)
try:
    job_count = len(daemon_jobs())
    driver.get(address)
    rows = lambda: driver.find_elements(By.CSS_SELECTOR, "#jobs li.job")
    until("the job list", lambda: len(rows()) == job_count)
    location = driver.execute_script("return location.href")
    if "token" in location or location != origin + "/":
        fail("the token is still in the address: " + location)
    if not driver.execute_script("return sessionStorage.getItem('haul.token')"):
        fail("the token is not kept in sessionStorage")
    until("the event stream", lambda: driver.find_element(By.ID, "conn").text == "live")

    # Add URLs through the form.
    driver.find_element(By.ID, "add-text").send_keys("\n".join(new_urls))
    driver.find_element(By.ID, "add-output").send_keys("added")
    driver.find_element(By.CSS_SELECTOR, "#add-form button[type=submit]").click()
    message = until("the new job", lambda: driver.find_element(By.ID, "add-msg").text
                    if driver.find_element(By.ID, "add-msg").text.startswith("Added job")
                    else None)
    new_id = message.split()[2].rstrip(".")
    until("the new job's row", lambda: len(rows()) == job_count + 1)
    if not any(j["id"] == new_id for j in daemon_jobs()):
        fail("haul jobs --json does not list " + new_id)

    # Pause and resume the slow job with its buttons; the daemon says so.
    slow = lambda: driver.find_element(By.CSS_SELECTOR, f'li[data-id="{slow_id}"]')
    slow().find_element(By.CSS_SELECTOR, '[data-act="pause"]').click()
    until("the daemon to pause", lambda: daemon_state(slow_id) == "paused")
    until("the page to show paused",
          lambda: slow().find_element(By.CSS_SELECTOR, ".state").text == "paused")
    focused = driver.execute_script("return document.activeElement.dataset.act")
    if focused != "resume":
        fail("after Pause the focus is on " + str(focused) + ", not Resume")
    slow().find_element(By.CSS_SELECTOR, '[data-act="resume"]').click()
    until("the daemon to resume", lambda: daemon_state(slow_id) in ("waiting", "active"))

    # The failed entries with their codes.
    failed = driver.find_element(By.CSS_SELECTOR, f'li[data-id="{failed_id}"]')
    failed.find_element(By.CSS_SELECTOR, '[data-act="failures"]').click()
    until("the failures", lambda: "http_404" in failed.find_element(By.CSS_SELECTOR, ".failures").text)

    # Move the new job up one place.
    before = [j["id"] for j in daemon_jobs()].index(new_id)
    driver.find_element(By.CSS_SELECTOR, f'li[data-id="{new_id}"] [data-act="up"]').click()
    until("the move", lambda: [j["id"] for j in daemon_jobs()].index(new_id) == before - 1)
    until("the page to reorder", lambda: rows()[before - 1].get_attribute("data-id") == new_id)

    # Keyboard: Tab reaches a control that shows a focus ring.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    ring = driver.execute_script("""
        const e = document.activeElement, s = getComputedStyle(e);
        return [e.tagName, s.outlineStyle, parseFloat(s.outlineWidth)];""")
    if ring[0] not in ("BUTTON", "INPUT", "TEXTAREA") or ring[1] == "none" or ring[2] < 2:
        fail("no visible focus after Tab: " + str(ring))
    driver.execute_script("document.activeElement.blur()")

    until("the chart's samples", lambda: driver.execute_script(
        "return document.getElementById('rate-now').textContent.startsWith('now')"))
    time.sleep(3)
    screenshot(driver, "wide")

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    time.sleep(1.5)
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    if widths[0] > 375:
        fail("at 375 px the page is %d px wide" % widths[0])
    screenshot(driver, "narrow")

    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail("console errors: " + json.dumps(errors))
    requested = set()
    for entry in driver.get_log("performance"):
        event = json.loads(entry["message"])["message"]
        if event["method"] == "Network.requestWillBeSent":
            requested.add(event["params"]["request"]["url"])
    foreign = [u for u in requested if not u.startswith(origin + "/") and not u.startswith("data:")]
    if foreign:
        fail("requests to other hosts: " + json.dumps(foreign))
    if not any(u.startswith(origin + "/v1/events") for u in requested):
        fail("no request for the events: " + json.dumps(sorted(requested)))
    print("ok", new_id, json.dumps(sorted(requested)))
finally:
    driver.quit()
