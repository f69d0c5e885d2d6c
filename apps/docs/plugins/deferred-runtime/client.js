// A client module: tells the page's loader (loader.js) that the runtime has hydrated the page, so that the clicks it
// held are given again. Docusaurus calls onRouteDidUpdate after the first render too.
export function onRouteDidUpdate() {
  if (typeof window !== 'undefined') setTimeout(() => window.__mountainRuntimeReady?.(), 0);
}
