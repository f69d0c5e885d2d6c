// Inlined into every page's <head> (see index.ts). The page is complete server-rendered HTML: reading it needs no
// script. The site's runtime (React, the router, the theme) is loaded on the reader's first sign of interaction; a
// control clicked before the runtime is ready acts once it is. Plain ES2017, no dependencies.
(() => {
  let started = false;
  let ready = false;
  const held = [];
  // Signs of interaction: a mouse or pen moving or pressed, a key, focus; a tap (click below). A finger touching
  // the screen is not one: it may be scrolling, which is reading.
  const INTENT = {
    mousemove: () => start(),
    pointerdown: (event) => event.pointerType !== 'touch' && start(),
    keydown: () => start(),
    focusin: () => start(),
  };
  const start = () => {
    if (started) return;
    started = true;
    for (const [type, listener] of Object.entries(INTENT)) removeEventListener(type, listener, true);
    for (const placeholder of document.querySelectorAll('script[data-runtime]')) {
      const script = document.createElement('script');
      script.src = placeholder.getAttribute('data-runtime');
      script.async = false; // in document order: the webpack runtime first
      document.head.appendChild(script);
    }
  };
  for (const [type, listener] of Object.entries(INTENT)) {
    addEventListener(type, listener, { capture: true, passive: true });
  }
  addEventListener(
    'click',
    (event) => {
      if (ready) return;
      start();
      const control = event.target instanceof Element && event.target.closest('button,[role=button],[role=tab]');
      if (!control) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      if (!held.includes(control)) held.push(control);
    },
    true,
  );
  // Called by the runtime once the page is hydrated (client.js).
  window.__mountainRuntimeReady = () => {
    if (ready) return;
    ready = true;
    for (const control of held.splice(0)) if (control.isConnected) control.click();
  };
  document.addEventListener('DOMContentLoaded', () => {
    if (document.querySelector('meta[name="mountain:runtime"][content="at-once"]')) start();
  });
})();
