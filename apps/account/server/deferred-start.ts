import { createHash } from 'node:crypto';
import { registry } from '../src/shared/storage/registry.ts';

// The login page's scripts, requested once the Email step is on screen. The page arrives with the
// step in it (login-page.ts), so nothing on screen waits for the app's JavaScript; requested with
// the document, its dozen modules were downloaded and answered while the browser laid out and
// painted the card, competing with that first paint for the phone's CPU and network. Here a small
// inline script in the head asks for them (as module preloads) when the browser reports the first
// paint; at once where:
// - this tab has started the same entry module before (its code is in the browser's cache, so there
//   is no download to compete with the paint: the page the authorization server sends back after
//   the app itself started the sign-in), as the browser's preload scanner did;
// - no paint will be reported (a hidden or prerendered tab, a browser without paint timing);
// and after FIRST_PAINT_WAIT_MS at the latest. The entry module itself is added once the document
// is parsed as well, where a module in the page would have run: after the root element and the
// deferred runtime configuration (`documentParsed` in main.tsx waits for the latter too).

/** The longest the app's start waits for the first paint to be reported. */
export const FIRST_PAINT_WAIT_MS = 2000;

/** The build's entry module and its preloads, as Vite writes them into index.html. */
const ENTRY_SCRIPT = /<script type="module" crossorigin src="(\/account\/assets\/[\w.-]+\.js)"><\/script>\s*/;
const MODULE_PRELOAD = /<link rel="modulepreload" crossorigin href="(\/account\/assets\/[\w.-]+\.js)">\s*/g;

/**
 * The inline script (ES2017, no dependencies: it runs as written here): preloads the modules once
 * the first paint is reported (or at once, above), and adds the entry module once they are asked
 * for and the document is parsed.
 */
export function deferredStartScript(entry: string, preloads: string[]): string {
  const startedEntry = JSON.stringify(registry.startedEntry.key);
  return `(function(){var entry=${JSON.stringify(entry)},modules=${JSON.stringify(preloads)}.concat(entry),asked=false,parsed=false,added=false;
function add(){if(added||!asked||!parsed)return;added=true;var s=document.createElement("script");s.type="module";s.crossOrigin="";s.src=entry;document.head.appendChild(s)}
function ask(){if(asked)return;asked=true;modules.forEach(function(href){var l=document.createElement("link");l.rel="modulepreload";l.crossOrigin="";l.href=href;document.head.appendChild(l)});add()}
function onParsed(){parsed=true;add()}
if(document.readyState!=="loading")onParsed();else document.addEventListener("DOMContentLoaded",onParsed);
var cached=false;try{cached=sessionStorage.getItem(${startedEntry})===JSON.stringify(entry)}catch(e){}
var types=(window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes)||[];
if(cached||document.visibilityState!=="visible"||document.prerendering||types.indexOf("paint")<0){ask();return}
var o=new PerformanceObserver(function(list){if(list.getEntriesByName("first-contentful-paint").length){o.disconnect();ask()}});
o.observe({type:"paint",buffered:true});setTimeout(ask,${FIRST_PAINT_WAIT_MS})})();`;
}

/**
 * The page with its entry module and preloads replaced by the inline script (at the end of the
 * head), and that script's CSP source. A page without an entry module is returned as it is.
 */
export function deferScripts(page: string): { page: string; scriptSources: string[] } {
  const entry = ENTRY_SCRIPT.exec(page);
  if (!entry || !page.includes('</head>')) return { page, scriptSources: [] };
  const preloads = [...page.matchAll(MODULE_PRELOAD)].map((m) => m[1]!);
  const script = deferredStartScript(entry[1]!, preloads);
  const hash = createHash('sha256').update(script).digest('base64');
  const stripped = page.replace(entry[0], '').replace(MODULE_PRELOAD, '');
  return {
    page: stripped.replace('</head>', () => `<script>${script}</script></head>`),
    scriptSources: [`'sha256-${hash}'`],
  };
}
