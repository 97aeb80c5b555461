/**
 * Swagger UI made accessible (axe-core: no critical or serious finding; test/e2e/graphiql.e2e.spec.ts),
 * served by @fastify/swagger-ui as its theme: a style sheet for contrast and a script that names the
 * controls it leaves unnamed, after each of its renders. Its top bar (a logo without text and an
 * unlabelled address box for loading other documents) is not shown: the page has one document.
 */

/** Colours of at least 4.5:1 (WCAG AA) where Swagger UI's are lighter. */
const CSS = `
.swagger-ui .info .title small,
.swagger-ui .info .title small pre,
.swagger-ui .info .title small.version-stamp { background: #4a5568; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1f5fa8; }
.swagger-ui .btn.authorize { color: #1e6e47; border-color: #1e6e47; }
.swagger-ui .btn.authorize svg { fill: #1e6e47; }
.swagger-ui .opblock-tag small, .swagger-ui .opblock .opblock-summary-description,
.swagger-ui .parameter__in, .swagger-ui .parameter__type, .swagger-ui .prop-format,
.swagger-ui .response-col_links, .swagger-ui .renderedMarkdown p { color: #3b4351; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f6fb2; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1e7a4e; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #955200; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #17705f; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b52a1c; }
.swagger-ui .opblock.opblock-head .opblock-summary-method,
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #6b46c1; }
.swagger-ui .opblock.opblock-deprecated { opacity: 1; }
.swagger-ui .opblock.opblock-deprecated .opblock-summary-method { background: #5b6270; color: #ffffff; }
.swagger-ui .opblock.opblock-deprecated .opblock-summary-path,
.swagger-ui .opblock.opblock-deprecated .opblock-summary-path a,
.swagger-ui .opblock.opblock-deprecated .opblock-summary-description { color: #4a5568; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #3b4351; }
`;

/** Names for the controls Swagger UI renders without one, re-applied as it renders. */
const JS = `(() => {
  const named = (element, name) => {
    if (!element.getAttribute('aria-label') && (element.textContent || '').trim() === '') element.setAttribute('aria-label', name);
  };
  const is = (element, ...classes) => classes.some((name) => element.classList.contains(name));
  const repair = () => {
    const servers = document.getElementById('servers');
    if (servers && !servers.getAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    for (const select of document.querySelectorAll('.swagger-ui select:not([aria-label])')) {
      if (!select.labels || select.labels.length === 0) select.setAttribute('aria-label', select.closest('.response-control-media-type')
        ? 'Media type' : select.closest('.content-type-wrapper') ? 'Content type' : 'Choose a value');
    }
    for (const button of document.querySelectorAll('.swagger-ui button')) {
      if (button.closest('.copy-to-clipboard')) named(button, 'Copy to clipboard');
      else if (is(button, 'opblock-control-arrow', 'expand-operation')) named(button, 'Show or hide the operation');
      else if (is(button, 'model-box-control', 'models-control')) named(button, 'Show or hide the schema');
      else if (button.classList.contains('authorization__btn')) named(button, 'Authorize this operation');
      else named(button, button.getAttribute('title') || 'Show or hide');
    }
  };
  const start = () => {
    const root = document.getElementById('swagger-ui');
    if (!root) return;
    repair();
    new MutationObserver(repair).observe(root, { subtree: true, childList: true });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;

/** @fastify/swagger-ui's `theme`. */
export const DOCS_THEME = {
  title: 'infraledger REST API',
  css: [{ filename: 'accessible.css', content: CSS }],
  js: [{ filename: 'accessible.js', content: JS }],
};
