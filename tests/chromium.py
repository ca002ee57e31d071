"""Headless Chromium for the reader checks: screenshots, the DOM after the scripts ran, and a
probe that measures the page at a window size (``python -m tests.chromium shot PAGE PNG``).

The probe is a copy of the page with two scripts added: one at the start of ``<head>`` that
records any ``alert``, one after load that writes what the test asserts (window and
document widths, elements wider than the window, table headers, images and event-handler
attributes) as JSON into ``<pre id="coldbias-probe">``, read back from ``--dump-dom``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: the reader's window (a common laptop screen)
WIDTH, HEIGHT = 1366, 768

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

_ALERTS = (
    "<script>window.__alerts = []; "
    "window.alert = function (m) { __alerts.push(String(m)); };</script>"
)

_PROBE = """<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    var w = window.innerWidth, wide = [], handlers = [], imgs = [], heads = [];
    var all = document.querySelectorAll("body *");
    for (var i = 0; i < all.length; i++) {
      var el = all[i], r = el.getBoundingClientRect();
      if (el.id === "coldbias-probe") continue;
      if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5)) {
        wide.push(el.tagName + (el.id ? "#" + el.id : "") + " " + Math.round(r.width));
      }
      for (var j = 0; j < el.attributes.length; j++) {
        var name = el.attributes[j].name;
        if (/^on/i.test(name)) handlers.push(el.tagName + " " + name);
      }
    }
    var im = document.images;
    for (var k = 0; k < im.length; k++) imgs.push(im[k].getAttribute("src").slice(0, 30));
    var tables = document.querySelectorAll("table");
    for (var t = 0; t < tables.length; t++) {
      var ths = tables[t].querySelectorAll("th"), row = [];
      for (var h = 0; h < ths.length; h++) {
        if (ths[h].offsetParent !== null) row.push(ths[h].textContent.trim());
      }
      var tw = Math.round(tables[t].getBoundingClientRect().width);
      heads.push({id: tables[t].id, headers: row, width: tw});
    }
    var out = {inner: w, scroll: document.documentElement.scrollWidth, wide: wide,
               handlers: handlers, images: imgs, scripts: document.scripts.length,
               tables: heads, alerts: window.__alerts, title: document.title};
    var pre = document.createElement("pre");
    pre.id = "coldbias-probe";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }, 50);
});
</script>"""


def executable() -> str | None:
    """The Chromium binary, or None when it is not installed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def run(url: str, *args: str, size: tuple[int, int] = (WIDTH, HEIGHT)) -> str:
    """Run headless Chromium on ``url`` with a fresh profile; its stdout."""
    exe = executable()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            exe,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            *args,
            url,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout


def screenshot(page: Path, png: Path, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Path:
    """The first screen of ``page`` at ``size`` as a PNG."""
    png.parent.mkdir(parents=True, exist_ok=True)
    run(
        page.resolve().as_uri(),
        f"--screenshot={png.resolve()}",
        "--virtual-time-budget=3000",
        size=size,
    )
    return png


def probe(
    page: Path, fragment: str = "", size: tuple[int, int] = (WIDTH, HEIGHT)
) -> dict[str, Any]:
    """What the page looks like to a reader at ``size`` (module docstring); ``fragment``: a
    URL fragment (``#sort=0``) applied on load."""
    text = page.read_text(encoding="utf-8")
    text = text.replace("<head>", "<head>" + _ALERTS, 1).replace("</body>", _PROBE + "</body>", 1)
    copy = page.with_name(f".probe-{page.name}")
    copy.write_text(text, encoding="utf-8")
    try:
        dom = run(
            copy.resolve().as_uri() + fragment,
            "--dump-dom",
            "--virtual-time-budget=5000",
            size=size,
        )
    finally:
        copy.unlink()
    found = re.search(r'<pre id="coldbias-probe">(.*?)</pre>', dom, re.S)
    if found is None:
        raise RuntimeError("the probe did not run (no coldbias-probe element in the DOM)")
    out = json.loads(html.unescape(found.group(1)))
    out["dom"] = dom
    return out


def main(argv: list[str]) -> int:
    """``shot PAGE PNG``: a screenshot at the reader's size."""
    if len(argv) == 3 and argv[0] == "shot":
        print(screenshot(Path(argv[1]), Path(argv[2])))
        return 0
    print("usage: python -m tests.chromium shot PAGE.html OUT.png", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
