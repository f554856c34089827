import {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from '@tanstack/virtual-core';
import type { RefObject } from 'preact';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

/**
 * A @tanstack/virtual-core virtualizer of fixed-size rows (or, `horizontal`, columns) inside
 * `scrollRef`: only the rows in view (plus a few) are rendered, so 10,000 entries keep the DOM
 * small. Item starts include `headHeight`; subtract it to place a row inside its container.
 */
export function useVirtualizer(
  count: number,
  rowHeight: number,
  scrollRef: RefObject<HTMLElement | null>,
  /** Height above the rows inside the scroller (a sticky header): rows start below it. */
  headHeight = 0,
  horizontal = false,
  /** Rows rendered beyond those in view, on each side. */
  overscan = horizontal ? 1 : 6,
): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options: VirtualizerOptions<HTMLElement, HTMLElement> = {
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan,
    horizontal,
    scrollMargin: headHeight,
    scrollPaddingStart: headHeight,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState(() => new Virtualizer(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
