// What covers what on a page of the table link, measured by the browser itself from
// its elements' rectangles (tests/web/test_pages.py runs it as a function body).
// arguments[0]: the elements that must all be on the screen, whole, none covering another;
// arguments[1]: those that must be at least 48x48 CSS px (touch targets);
// arguments[2]: those that must stay inside their parent's box.
// Returns what is wrong, in words (nothing: all is well).
var W = window.innerWidth, H = window.innerHeight, problems = [];
var root = document.documentElement;
if (root.scrollHeight > H || root.scrollWidth > W || document.body.scrollHeight > H)
  problems.push('the page scrolls: ' + root.scrollWidth + 'x' + root.scrollHeight + ' in ' + W + 'x' + H);
function box(e) { var b = e.getBoundingClientRect(); return {l: b.left, t: b.top, r: b.right, b: b.bottom}; }
function shown(e) { var b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; }
function inside(a, o) { return a.l >= o.l - 0.5 && a.t >= o.t - 0.5 && a.r <= o.r + 0.5 && a.b <= o.b + 0.5; }
function meets(a, b) { return a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5; }
function name(e) { return e.tagName.toLowerCase() + '.' + e.className.split(' ').join('.') + (e.getAttribute('data-seat') ? '[' + e.getAttribute('data-seat') + ']' : '') + ' "' + e.textContent.slice(0, 20) + '"'; }
function all(css) { return Array.prototype.filter.call(document.querySelectorAll(css), shown); }
var screenBox = {l: 0, t: 0, r: W, b: H};
var leaves = all(arguments[0]);
leaves.forEach(function (e) {
  if (!inside(box(e), screenBox)) problems.push(name(e) + ' is off the screen');
  if (e.scrollWidth > e.clientWidth + 1)
    problems.push(name(e) + ' is cut: ' + e.scrollWidth + ' px wide in ' + e.clientWidth);
});
for (var i = 0; i < leaves.length; i++)
  for (var j = i + 1; j < leaves.length; j++)
    if (meets(box(leaves[i]), box(leaves[j]))) problems.push(name(leaves[i]) + ' covers ' + name(leaves[j]));
all(arguments[1]).forEach(function (e) {
  var b = box(e);
  if (b.r - b.l < 48 || b.b - b.t < 48) problems.push(name(e) + ' is ' + Math.round(b.r - b.l) + 'x' + Math.round(b.b - b.t) + ', under 48x48');
});
all(arguments[2]).forEach(function (e) {
  if (!inside(box(e), box(e.parentNode))) problems.push(name(e) + ' leaves its box');
});
return problems;
