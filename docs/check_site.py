"""Look at the built documentation site in a real browser, as a reader would.

Usage::

    mkdocs build --strict
    python docs/check_site.py                 # site/, over HTTP, Chromium
    python docs/check_site.py --file          # the pages opened as files
    python docs/check_site.py --browser firefox
    python docs/check_site.py --all           # every page (screenshots of PAGES only)

For each page of :data:`PAGES` the site is served on an ephemeral port of 127.0.0.1
(or opened as ``file://``), loaded in a headless browser driven by selenium, and
inspected once MathJax has typeset it (:func:`inspect_page`):

* every typeset formula is drawn with a non-zero width and height, and so is each of
  its glyphs (a formula whose glyphs have no size shows only its spacing), and no
  formula is a TeX error;
* no text outside code blocks is still raw TeX (``\\(``, ``\\frac`` ...), in the
  article, its headings and the table of contents alike;
* every image has loaded (a non-zero natural width);
* nothing was fetched from outside the site (reading needs no network).

A screenshot of each page is written to ``<site>/_screenshots/`` (part of the build
output, never committed). The script exits with status 1 when a page has a problem.
``tests/test_docs.py`` runs the same checks on a fresh build. Chromium needs
``chromium`` and ``chromium-driver`` (Debian), Firefox needs ``firefox-esr`` and a
``geckodriver`` on the PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PAGES = (
    "index.html",
    "theory/capacity/index.html",
    "theory/spectrum-finite-size/index.html",
    "measurements/capacity/index.html",
    "vocabulary/index.html",
)
"""Pages looked at: landing page, two theory pages, a measurement page, the vocabulary."""

SCREENSHOT_DIR = "_screenshots"
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromedriver")
CHROMIUM_ARGUMENTS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # containers often have a small /dev/shm
    "--window-size=1400,1000",
)
WAIT_SECONDS = 60.0
"""Upper bound on the wait for a page to be loaded and typeset (polled, not slept)."""

# Runs in the page: resolves once MathJax has started and typeset what it found.
_WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const startup = window.MathJax && window.MathJax.startup;
if (!startup || !startup.promise) { done(false); return; }
startup.promise
  .then(() => document.fonts.ready)
  .then(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
  .then(() => done(true), (error) => done("MathJax failed: " + error));
"""

# Runs in the page: the facts the checks are about.
_INSPECT = r"""
const skip = "pre, code, script, style, textarea, noscript, mjx-assistive-mml, svg, .md-search";
const raw = /\\[()\[\]]|\\[A-Za-z]{2,}|\$\$/;
const where = (node) => {
  const heading = node.closest && node.closest("h1, h2, h3, h4, h5, h6, nav, table, li, p");
  return heading ? heading.tagName.toLowerCase() + (heading.id ? "#" + heading.id : "") : "";
};
// A glyph is an mjx-c element (CHTML output, code in its class) or an SVG element with
// a data-c attribute (SVG output); characters that draw nothing are not glyphs.
const blank = (code) => code <= 0x20 || code === 0xa0 || (code >= 0x2000 && code <= 0x200f)
  || code === 0x202f || (code >= 0x205f && code <= 0x2064) || code === 0xfeff;
const glyphCode = (element) => {
  const hex = element.getAttribute("data-c")
    || ((element.getAttribute("class") || "").match(/\bmjx-c([0-9A-F]+)\b/) || [])[1];
  return hex ? parseInt(hex, 16) : null;
};
const formulas = [];
for (const element of document.querySelectorAll("mjx-container")) {
  const box = element.getBoundingClientRect();
  const invisible = [];
  for (const glyph of element.querySelectorAll("mjx-c, [data-c]")) {
    const code = glyphCode(glyph);
    if (code === null || blank(code)) continue;
    const size = glyph.getBoundingClientRect();
    // area, not each side: a minus sign or a rule is a fraction of a pixel high
    if (size.width * size.height < 0.5) invisible.push(String.fromCodePoint(code));
  }
  const error = element.querySelector("[data-mjx-error], mjx-merror");
  formulas.push({
    error: error ? error.getAttribute("data-mjx-error") || error.textContent : null,
    rendered: element.getClientRects().length > 0,
    width: box.width,
    height: box.height,
    invisible: invisible.join(""),
    text: (element.textContent || "").slice(0, 60),
    where: where(element),
  });
}
const rawTex = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (node.parentElement.closest(skip)) continue;
  if (raw.test(node.nodeValue)) {
    rawTex.push({ text: node.nodeValue.trim().slice(0, 80), where: where(node.parentElement) });
  }
}
for (const element of document.querySelectorAll("[aria-label], [title]")) {
  for (const name of ["aria-label", "title"]) {
    const value = element.getAttribute(name);
    if (value && raw.test(value)) rawTex.push({ text: value.slice(0, 80), where: name });
  }
}
if (raw.test(document.title)) rawTex.push({ text: document.title, where: "title" });
const pending = Array.from(document.querySelectorAll(".arithmatex"))
  .filter((element) => !element.querySelector("mjx-container")).length;
const images = Array.from(document.images).map((image) => ({
  src: image.getAttribute("src"),
  complete: image.complete,
  naturalWidth: image.naturalWidth,
}));
const here = location.protocol === "file:" ? "file:" : location.origin + "/";
const foreign = performance.getEntriesByType("resource").map((entry) => entry.name)
  .filter((name) => !name.startsWith(here) && !name.startsWith("data:"));
return {
  formulas, rawTex, pending, images, foreign, height: document.documentElement.scrollHeight,
};
"""


@dataclass
class PageReport:
    """What one page showed in the browser.

    Attributes
    ----------
    url
        The page's address.
    formulas
        Number of typeset formulas that the page displays.
    problems
        One line per defect: a formula drawn with zero width or height, raw TeX in
        the text, a formula never typeset, an image that failed to load.
    """

    url: str
    formulas: int = 0
    problems: list[str] = field(default_factory=list)


def chromium_available() -> bool:
    """Whether Debian's ``chromium`` and ``chromium-driver`` are installed."""
    return all(Path(path).is_file() for path in CHROMIUM)


def firefox_available() -> bool:
    """Whether Firefox and a ``geckodriver`` are on the PATH."""
    return bool(shutil.which("geckodriver")) and bool(
        shutil.which("firefox-esr") or shutil.which("firefox")
    )


@contextlib.contextmanager
def browser(name: str = "chromium") -> Iterator[Any]:
    """A headless selenium driver of ``name`` ("chromium" or "firefox"), closed on exit.

    Chromium runs with a fresh profile and without any background network access.

    Raises
    ------
    ValueError
        When ``name`` is neither "chromium" nor "firefox".
    """
    from selenium import webdriver  # noqa: PLC0415

    profile = tempfile.mkdtemp(prefix="lamcap-browser-")
    if name == "chromium":
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM[0]
        for argument in CHROMIUM_ARGUMENTS:
            options.add_argument(argument)
        options.add_argument(f"--user-data-dir={profile}")
        service = webdriver.ChromeService(executable_path=CHROMIUM[1])
        driver: Any = webdriver.Chrome(options=options, service=service)
    elif name == "firefox":
        options = webdriver.FirefoxOptions()
        options.add_argument("-headless")
        options.add_argument("-profile")
        options.add_argument(profile)
        options.set_preference("network.proxy.type", 0)
        driver = webdriver.Firefox(
            options=options, service=webdriver.FirefoxService(shutil.which("geckodriver"))
        )
        driver.set_window_size(1400, 1000)
    else:
        msg = f"browser must be 'chromium' or 'firefox', got {name!r}"
        raise ValueError(msg)
    driver.set_script_timeout(WAIT_SECONDS)
    driver.set_page_load_timeout(WAIT_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Serve without logging every request."""


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` over HTTP on an ephemeral port of 127.0.0.1; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _typeset(driver: Any) -> Any:
    """True once the page is loaded and MathJax has typeset it, else False (poll again)."""
    if driver.execute_script("return document.readyState") != "complete":
        return False
    return driver.execute_async_script(_WAIT_FOR_MATHJAX)


def inspect_page(driver: Any, url: str, screenshot: Path | None = None) -> PageReport:
    """Open ``url``, wait (at most :data:`WAIT_SECONDS`) for typesetting, check the page.

    Parameters
    ----------
    driver
        A selenium driver from :func:`browser`.
    url
        The page, ``http://`` or ``file://``.
    screenshot
        Where to write a PNG of the whole page (at most 6000 pixels high), if given.

    Returns
    -------
    PageReport
        The number of formulas shown and the problems found.
    """
    from selenium.common.exceptions import TimeoutException  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    report = PageReport(url)
    driver.get(url)
    try:
        outcome = WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(_typeset)
    except TimeoutException:
        outcome = "MathJax did not start"
    if outcome is not True:
        report.problems.append(f"{outcome} within {WAIT_SECONDS:.0f} s")
    with contextlib.suppress(TimeoutException):  # formulas typeset after start-up
        WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(
            lambda d: d.execute_script(_INSPECT)["pending"] == 0
        )
    facts = driver.execute_script(_INSPECT)
    shown = [f for f in facts["formulas"] if f["rendered"]]
    report.formulas = len(shown)
    for formula in facts["formulas"]:
        if formula["error"] is not None:  # shown or hidden: a TeX error is in the source
            name = f"formula {formula['text']!r} ({formula['where']})"
            report.problems.append(f"{name} is a TeX error: {formula['error']}")
    for formula in shown:
        name = f"formula {formula['text']!r} ({formula['where']})"
        if formula["width"] < 1 or formula["height"] < 1:
            report.problems.append(f"{name} is {formula['width']:.1f} x {formula['height']:.1f} px")
        elif formula["invisible"]:
            report.problems.append(f"{name} draws {formula['invisible']!r} with zero size")
    report.problems += [f"raw TeX in {t['where']}: {t['text']!r}" for t in facts["rawTex"]]
    if facts["pending"]:
        report.problems.append(f"{facts['pending']} formulas were never typeset")
    report.problems += [f"loads {name} from outside the site" for name in facts["foreign"]]
    report.problems += [
        f"image {image['src']} did not load"
        for image in facts["images"]
        if not image["complete"] or image["naturalWidth"] == 0
    ]
    if screenshot is not None:
        _screenshot(driver, screenshot, facts["height"])
    return report


def _screenshot(driver: Any, path: Path, height: int) -> None:
    """Whole-page PNG: the window is made as tall as the page (capped at 6000 px)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    width = driver.get_window_size()["width"]
    driver.set_window_size(width, min(max(int(height), 800), 6000))
    driver.save_screenshot(str(path))
    driver.set_window_size(width, 1000)


def page_url(site: Path, page: str, base: str | None) -> str:
    """The address of ``page``: under ``base`` when served, else a ``file://`` URL."""
    return base + page if base is not None else (site / page).resolve().as_uri()


def screenshot_name(page: str, browser_name: str, how: str) -> str:
    """``theory/capacity/index.html`` -> ``theory-capacity-chromium-http.png``."""
    stem = page.removesuffix("index.html").strip("/").replace("/", "-") or "home"
    return f"{stem}-{browser_name}-{how}.png"


def site_pages(site: Path) -> list[str]:
    """Every page of the built ``site`` (its ``index.html`` files), sorted."""
    return sorted(
        path.relative_to(site).as_posix()
        for path in site.rglob("index.html")
        if not {SCREENSHOT_DIR, "javascripts", "assets"} & set(path.relative_to(site).parts)
    )


def check_site(
    site: Path,
    *,
    browser_name: str = "chromium",
    over_http: bool = True,
    screenshots: Path | None = None,
    pages: tuple[str, ...] | list[str] = PAGES,
) -> list[PageReport]:
    """Inspect pages of the built ``site``; screenshot those of :data:`PAGES`.

    Parameters
    ----------
    site
        The folder written by ``mkdocs build``.
    browser_name
        "chromium" or "firefox" (see :func:`browser`).
    over_http
        Serve the site on 127.0.0.1 (True) or open the pages as ``file://`` URLs.
    screenshots
        Folder of the PNGs; default ``<site>/_screenshots``.
    pages
        The pages to inspect, relative to ``site`` (default :data:`PAGES`;
        :func:`site_pages` gives all of them).

    Returns
    -------
    list of PageReport
        One report per page, in the order of ``pages``.

    Raises
    ------
    ValueError
        When ``site`` has no ``index.html`` (the site is not built).
    """
    if not (site / "index.html").is_file():
        msg = f"site={site} has no index.html: build it first with mkdocs build --strict"
        raise ValueError(msg)
    how = "http" if over_http else "file"
    folder = site / SCREENSHOT_DIR if screenshots is None else screenshots
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(serve(site)) if over_http else None
        driver = stack.enter_context(browser(browser_name))
        return [
            inspect_page(
                driver,
                page_url(site, page, base),
                folder / screenshot_name(page, browser_name, how) if page in PAGES else None,
            )
            for page in pages
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=HERE.parent / "site", help="built site")
    parser.add_argument("--file", action="store_true", help="open the pages as file:// URLs")
    parser.add_argument("--browser", choices=("chromium", "firefox"), default="chromium")
    parser.add_argument("--all", action="store_true", help="every page, not only PAGES")
    args = parser.parse_args(argv)
    pages = site_pages(args.site) if args.all else PAGES
    failed = False
    for report in check_site(
        args.site, browser_name=args.browser, over_http=not args.file, pages=pages
    ):
        print(f"{report.url}: {report.formulas} formulas, {len(report.problems)} problems")
        for problem in report.problems:
            print(f"    {problem}")
        failed = failed or bool(report.problems)
    print(f"screenshots in {args.site / SCREENSHOT_DIR}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
