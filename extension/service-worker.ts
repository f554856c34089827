// The extension's service worker: routes each devtools panel to the content script of its tab.
import { chromeApi } from './chrome-api.js';
import { startRouter } from './router.js';

const api = chromeApi('service worker');
if (!api.tabs) throw new Error('service worker: chrome.tabs is missing');
startRouter({ runtime: api.runtime, tabs: api.tabs });
