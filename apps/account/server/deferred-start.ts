import { createHash } from 'node:crypto';
import { registry } from '../src/shared/storage/registry.ts';

// The login page's scripts, requested once the Email step is on screen. The page arrives with the
// step in it (login-page.ts), so nothing on screen waits for the app's JavaScript; requested with
// the document, its dozen modules were downloaded and answered while the browser laid out and
// painted the card, competing with that first paint for the phone's CPU and network. Here the page
// lists them in a small inline script that asks for them when the browser reports the first paint;
// at once where:
// - this tab has started the same entry module before (its code is in the browser's cache, so there
//   is no download to compete with the paint: the page the authorization server sends back after
//   the app itself started the sign-in);
// - no paint will be reported (a hidden or prerendered tab, a browser without paint timing);
// and after FIRST_PAINT_WAIT_MS at the latest. A module added by a script runs as soon as it is
// loaded, perhaps before the document's deferred scripts: the app's start waits for the document
// to be parsed before it reads the runtime configuration (`documentParsed`, main.tsx).

/** The longest the app's start waits for the first paint to be reported. */
export const FIRST_PAINT_WAIT_MS = 2000;

/** The build's entry module and its preloads, as Vite writes them into index.html. */
const ENTRY_SCRIPT = /<script type="module" crossorigin src="(\/account\/assets\/[\w.-]+\.js)"><\/script>\s*/;
const MODULE_PRELOAD = /<link rel="modulepreload" crossorigin href="(\/account\/assets\/[\w.-]+\.js)">\s*/g;

/**
 * The inline script: adds the preloads and the entry module to the head once the first paint is
 * reported (or at once, above). ES2017 and no dependencies: it runs as written here.
 */
export function deferredStartScript(entry: string, preloads: string[]): string {
  const startedEntry = JSON.stringify(registry.startedEntry.key);
  return `(function(){var entry=${JSON.stringify(entry)},preloads=${JSON.stringify(preloads)},started=false;
function start(){if(started)return;started=true;preloads.forEach(function(href){var l=document.createElement("link");l.rel="modulepreload";l.crossOrigin="";l.href=href;document.head.appendChild(l)});var s=document.createElement("script");s.type="module";s.crossOrigin="";s.src=entry;document.head.appendChild(s)}
var cached=false;try{cached=sessionStorage.getItem(${startedEntry})===JSON.stringify(entry)}catch(e){}
var types=(window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes)||[];
if(cached||document.visibilityState!=="visible"||document.prerendering||types.indexOf("paint")<0){start();return}
var o=new PerformanceObserver(function(list){if(list.getEntriesByName("first-contentful-paint").length){o.disconnect();start()}});
o.observe({type:"paint",buffered:true});setTimeout(start,${FIRST_PAINT_WAIT_MS})})();`;
}

/**
 * The page with its entry module and preloads replaced by the inline script (at the end of the
 * body), and that script's CSP source. A page without an entry module is returned as it is.
 */
export function deferScripts(page: string): { page: string; scriptSources: string[] } {
  const entry = ENTRY_SCRIPT.exec(page);
  if (!entry || !page.includes('</body>')) return { page, scriptSources: [] };
  const preloads = [...page.matchAll(MODULE_PRELOAD)].map((m) => m[1]!);
  const script = deferredStartScript(entry[1]!, preloads);
  const hash = createHash('sha256').update(script).digest('base64');
  const stripped = page.replace(entry[0], '').replace(MODULE_PRELOAD, '');
  return {
    page: stripped.replace('</body>', () => `<script>${script}</script></body>`),
    scriptSources: [`'sha256-${hash}'`],
  };
}
