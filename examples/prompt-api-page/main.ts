import { startPage } from './page.js';

void startPage(document.getElementById('app')!);
