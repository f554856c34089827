import { afterEach, describe, expect, it } from 'vitest';
import { userEvent } from 'vitest/browser';
import { button, cleanupMounts, type Mounted, mount, put, sampleStore, setValue, until } from './inspector-fixtures.js';

afterEach(cleanupMounts);

/** The path of the row the keyboard points at (aria-activedescendant), and of every row drawn as active or selected. */
function highlighted(view: Mounted) {
  const grid = view.one('table[role="grid"]');
  const id = grid.getAttribute('aria-activedescendant');
  const pointed = id ? (view.root.getElementById(id) as HTMLTableRowElement | null) : null;
  const path = (row: Element) => (row as HTMLTableRowElement).cells[0]?.textContent;
  return {
    pointed: pointed && path(pointed),
    active: view.all('tbody tr.row.active').map(path),
    selected: view.all('tbody tr.row[aria-selected="true"]').map(path),
  };
}

const BRAVO = '/large_tool_results/bravo';

describe('the active row follows its entry', () => {
  it('when a new entry is listed above it, one row stays highlighted and the keys move on from it', async () => {
    const store = await sampleStore();
    const view = mount({ store });
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[1]!.click(); // bravo: selected and active
    await until(() => expect(highlighted(view)).toEqual({ pointed: BRAVO, active: [BRAVO], selected: [BRAVO] }));

    await put(store, 'chat-1', 'echo', 'a newer result'); // newest first: listed above bravo
    await until(() => expect(view.paths()[0]).toBe('/large_tool_results/echo'));
    expect(view.paths()[2]).toBe(BRAVO);
    expect(highlighted(view)).toEqual({ pointed: BRAVO, active: [BRAVO], selected: [BRAVO] });

    // The grid has focus (the click gave it): ArrowDown goes to the row below bravo, not below its old place.
    await userEvent.keyboard('{ArrowDown}');
    await until(() => expect(highlighted(view).active).toEqual(['/large_tool_results/alpha']));
    expect(highlighted(view).pointed).toBe('/large_tool_results/alpha');
  });

  it('across sorting and filtering, and back to it when the filter is cleared', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[1]!.click();
    await until(() => expect(highlighted(view).active).toEqual([BRAVO]));

    const header = (name: string) => view.all('thead th').find((th) => th.textContent === name)!;
    header('Stored').querySelector('button')!.click(); // bravo (28 B) goes to the top
    await until(() => expect(view.paths()[0]).toBe(BRAVO));
    expect(highlighted(view)).toEqual({ pointed: BRAVO, active: [BRAVO], selected: [BRAVO] });

    const text = view.one<HTMLInputElement>('input[aria-label="Filter by text"]');
    setValue(text, 'chat-1'); // alpha and bravo; bravo now second
    await until(() => expect(view.paths()).toEqual([BRAVO, '/large_tool_results/alpha']));
    expect(highlighted(view).active).toEqual([BRAVO]);

    setValue(text, 'delta'); // bravo hidden: the one row left is where the keys start
    await until(() => expect(view.paths()).toEqual(['/large_tool_results/delta']));
    expect(highlighted(view).active).toEqual(['/large_tool_results/delta']);

    setValue(text, '');
    await until(() => expect(view.paths()).toHaveLength(3));
    expect(highlighted(view)).toEqual({ pointed: BRAVO, active: [BRAVO], selected: [BRAVO] });
  });

  it('starts on the selected entry when the entries tab is shown again', async () => {
    const view = mount({ store: await sampleStore() });
    await until(() => expect(view.paths()).toHaveLength(3));
    view.all('tbody tr.row')[2]!.click(); // alpha
    button(view, 'Evictions (1)').click();
    await until(() => expect(view.all('.timeline li')).toHaveLength(1));
    button(view, 'Entries (3)').click();
    await until(() => expect(view.paths()).toHaveLength(3));
    const alpha = '/large_tool_results/alpha';
    expect(highlighted(view)).toEqual({ pointed: alpha, active: [alpha], selected: [alpha] });
  });
});
