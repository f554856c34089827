export { type ContextLedger, contextLedger } from './offload/context/ledger.js';
