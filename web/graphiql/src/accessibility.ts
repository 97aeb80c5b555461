/**
 * What GraphiQL 4 leaves out for assistive technology, put back after each of its renders (axe-core
 * reports these as critical or serious; test/e2e/graphiql.e2e.spec.ts keeps them at none):
 * - CodeMirror's hidden textareas have no label: each gets its editor's name;
 * - a tab (`li role="tab"`) holds its own buttons (nested interactive controls): the tab's role and
 *   state move to the button that selects it, the item becomes presentation;
 * - an editor's scrolling area cannot be reached by keyboard: it joins the tab order, where the arrow
 *   keys scroll it.
 * Contrast is page.css's.
 */

const setIfChanged = (element: Element, name: string, value: string): void => {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
};

function labelEditors(root: ParentNode): void {
  for (const textarea of root.querySelectorAll('.graphiql-query-editor textarea')) setIfChanged(textarea, 'aria-label', 'GraphQL query');
  for (const textarea of root.querySelectorAll('.graphiql-response textarea')) setIfChanged(textarea, 'aria-label', 'Response');
  // The tools area holds the variables editor, then the headers editor (one of them hidden).
  const tools = ['Variables (JSON)', 'Headers (JSON)'];
  root.querySelectorAll('.graphiql-editor-tool .graphiql-editor').forEach((editor, index) => {
    const textarea = editor.querySelector('textarea');
    if (textarea) setIfChanged(textarea, 'aria-label', tools[index] ?? 'Editor');
  });
}

function flattenTabs(root: ParentNode): void {
  for (const tab of root.querySelectorAll('li.graphiql-tab')) {
    const selected = tab.getAttribute('aria-selected');
    const button = tab.querySelector('button.graphiql-tab-button');
    if (button) {
      setIfChanged(button, 'role', 'tab');
      if (selected !== null) setIfChanged(button, 'aria-selected', selected);
    }
    setIfChanged(tab, 'role', 'presentation');
    if (selected !== null) tab.removeAttribute('aria-selected');
  }
}

function reachScrollAreas(root: ParentNode): void {
  for (const area of root.querySelectorAll('.CodeMirror-scroll')) setIfChanged(area, 'tabindex', '0');
}

/** Applies the repairs now and after every change GraphiQL makes under `root`. */
export function repairAccessibility(root: HTMLElement): void {
  const repair = (): void => {
    labelEditors(root);
    flattenTabs(root);
    reachScrollAreas(root);
  };
  repair();
  // Each repair only writes what differs, so its own mutations settle after one more pass.
  new MutationObserver(repair).observe(root, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['aria-selected', 'tabindex', 'role'],
  });
}
