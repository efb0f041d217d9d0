// MathJax settings for pymdownx.arithmatex (generic mode): render \( \) and \[ \].
//
// Output is SVG (javascripts/mathjax/tex-svg.js): every glyph is drawn as a path inside
// the formula's own <svg>, so no web font has to be found, fetched or allowed (which
// file:// pages in some browsers refuse) and nothing depends on a shared stylesheet of
// glyph rules.  MathJax typesets the page once, when it is ready; the Material
// `document$` hook only typesets formulas that are not typeset yet (pages swapped in
// by instant navigation), and never clears MathJax's caches: clearing the output cache
// after the first typeset drops the CSS of every glyph of the CHTML output, and each
// formula then has zero width.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
  svg: {
    fontCache: "local", // glyph paths inside each formula: survives any DOM swap
  },
};

function lamcapPendingMath() {
  return Array.from(document.querySelectorAll(".arithmatex")).filter(
    (element) => !element.querySelector("mjx-container"),
  );
}

if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    const startup = window.MathJax && window.MathJax.startup;
    if (!startup || !startup.promise) {
      return; // MathJax is not loaded yet: its start-up typesets the page
    }
    startup.promise = startup.promise.then(() => {
      const pending = lamcapPendingMath();
      return pending.length ? MathJax.typesetPromise(pending) : undefined;
    });
  });
}
