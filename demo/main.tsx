import { render } from 'preact';
import { mountInspector } from '../inspector/index.js';
import { store } from './agent-setup.js';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('chat')!);
// The inspector reads the same IndexedDB store the agent writes; each gauge shows the bound the
// store holds its thread to (the agent's maxTotalBytes), so it is not passed again here.
mountInspector(document.getElementById('inspector')!, { store });
