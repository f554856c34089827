// Firefox only: Playwright's WebDriver BiDi clicks report "element is not visible" inside an iframe
// that has a CSS transform on an ancestor, and Vitest's runner scales the iframe's container
// (#vitest-tester). Removing that transform in the runner page makes userEvent clicks work.
const id = 'firefox-tester-transform';
const runner = window.parent.document;
if (!runner.getElementById(id)) {
  const style = runner.createElement('style');
  style.id = id;
  style.textContent = '#vitest-tester { transform: none !important; }';
  runner.head.append(style);
}
