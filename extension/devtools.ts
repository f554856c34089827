// The devtools_page: runs once per DevTools window and adds the panel.
import { chromeApi } from './chrome-api.js';

const devtools = chromeApi('devtools page').devtools;
if (!devtools) throw new Error('devtools page: chrome.devtools is missing');
devtools.panels.create('Tool output', '', 'panel.html');
