import { render } from 'preact';
import { mountInspector } from '../inspector/index.js';
import { maxTotalBytes, store } from './agent-setup.js';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('chat')!);
// The inspector reads the same IndexedDB store the agent writes; its gauge shows the bound.
mountInspector(document.getElementById('inspector')!, { store }, { bound: maxTotalBytes });
