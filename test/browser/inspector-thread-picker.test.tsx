import { afterEach, describe, expect, it } from 'vitest';
import { userEvent } from 'vitest/browser';
import { MemoryOffloadStore } from '../../lib/store/memory-store.js';
import {
  chooseThread,
  cleanupMounts,
  type Mounted,
  mount,
  put,
  sampleStore,
  setValue,
  threadChoices,
  threadPicker,
  until,
} from './inspector-fixtures.js';

afterEach(cleanupMounts);

const threadName = (i: number) => `thread-${i.toString().padStart(4, '0')}`;

/** A store of `count` threads of one result each. */
async function manyThreads(count: number): Promise<MemoryOffloadStore> {
  const store = new MemoryOffloadStore();
  for (let i = 0; i < count; i++) await put(store, threadName(i), `call-${i}`, `result ${i}`);
  return store;
}

/** The thread column of the rows shown. */
const rowThreads = (view: Mounted) =>
  view.all<HTMLTableRowElement>('tbody tr.row').map((row) => row.cells[1]?.textContent ?? '');

/** The choice the combobox points at (aria-activedescendant). */
const activeChoice = (view: Mounted) => {
  const id = threadPicker(view).getAttribute('aria-activedescendant');
  return id ? view.root.getElementById(id)?.textContent : undefined;
};

describe('the thread filter', () => {
  it('over 1,000 threads renders no choice until opened, then only a few, and typing narrows them', async () => {
    const view = mount({ store: await manyThreads(1000) });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (1,000)'));
    expect(view.all('[role="option"], option')).toHaveLength(0);
    const picker = threadPicker(view);
    expect(picker.getAttribute('aria-expanded')).toBe('false');

    picker.click();
    await until(() => expect(threadChoices(view)[0]).toBe('All threads'));
    expect(picker.getAttribute('aria-expanded')).toBe('true');
    const shown = threadChoices(view).length;
    expect(shown).toBeGreaterThan(1);
    expect(shown).toBeLessThan(50);
    expect(view.one('[role="option"]').getAttribute('aria-setsize')).toBe('1001');

    setValue(picker, '0999');
    await until(() => expect(threadChoices(view)).toEqual(['All threads', 'thread-0999']));
    setValue(picker, 'THREAD-05'); // any case: 100 threads match, the list draws those in view
    await until(() => expect(view.one('[role="option"]').getAttribute('aria-setsize')).toBe('101'));
    expect(threadChoices(view).slice(1, 3)).toEqual(['thread-0500', 'thread-0501']);
    expect(threadChoices(view).length).toBeLessThan(50);
    setValue(picker, 'nothing like it');
    await until(() => expect(view.one('[role="listbox"]').textContent).toContain('No thread matches.'));
  });

  it('choosing a thread filters the panel on it; choosing all threads lifts the filter', async () => {
    const view = mount({ store: await manyThreads(1000) });
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (1,000)'));
    await chooseThread(view, threadName(742));
    await until(() => expect(rowThreads(view)).toEqual(['thread-0742']));
    expect(threadPicker(view).value).toBe('thread-0742');
    expect(view.all('[role="option"]')).toHaveLength(0); // closed again

    await chooseThread(view, '');
    await until(() => expect(view.one('[role="tab"]').textContent).toBe('Entries (1,000)'));
    expect(threadPicker(view).value).toBe('');
  });

  it('works from the keyboard: arrows move, Enter chooses, Escape closes without choosing', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    const picker = threadPicker(view);
    picker.focus();
    await userEvent.keyboard('{ArrowDown}');
    await until(() => expect(activeChoice(view)).toBe('All threads'));
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowUp}');
    await until(() => expect(activeChoice(view)).toBe('chat-1'));
    await userEvent.keyboard('{Enter}');
    await until(() => expect(rowThreads(view)).toEqual(['chat-1', 'chat-1']));
    expect(picker.getAttribute('aria-expanded')).toBe('false');

    await userEvent.keyboard('{ArrowDown}'); // opens on the thread chosen
    await until(() => expect(activeChoice(view)).toBe('chat-1'));
    await userEvent.keyboard('{End}{Escape}');
    await until(() => expect(picker.getAttribute('aria-expanded')).toBe('false'));
    expect(rowThreads(view)).toEqual(['chat-1', 'chat-1']);
    expect(picker.value).toBe('chat-1');

    await userEvent.keyboard('{ArrowDown}'); // opens on the thread chosen
    await until(() => expect(activeChoice(view)).toBe('chat-1'));
    await userEvent.keyboard('{Home}{Enter}');
    await until(() => expect(rowThreads(view)).toHaveLength(3));

    setValue(picker, 'chat-2'); // typing points at the first match
    await until(() => expect(activeChoice(view)).toBe('chat-2'));
    await userEvent.keyboard('{Enter}');
    await until(() => expect(rowThreads(view)).toEqual(['chat-2']));
  });

  it('lists threads that arrive while it is open, and keeps the thread chosen', async () => {
    const store = await sampleStore();
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(3));
    await chooseThread(view, 'chat-2');
    threadPicker(view).click();
    await until(() => expect(threadChoices(view)).toEqual(['All threads', 'chat-1', 'chat-2']));
    await put(store, 'chat-3', 'echo', 'new result');
    await until(() => expect(threadChoices(view)).toEqual(['All threads', 'chat-1', 'chat-2', 'chat-3']));
    expect(view.one('[role="option"][aria-selected="true"]').textContent).toBe('chat-2');
    expect(rowThreads(view)).toEqual(['chat-2']);
  });
});
