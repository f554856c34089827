// Runs in every http(s) page (isolated world, top frame). Idle until the panel of this tab connects.
import { chromeApi } from './chrome-api.js';
import { startContentRelay } from './content-relay.js';

startContentRelay(chromeApi('content script').runtime, { origin: location.origin });
