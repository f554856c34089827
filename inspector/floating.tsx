import { useEffect, useRef, useState } from 'preact/hooks';
import { Panel, type PanelProps } from './panel.js';

const MIN_HEIGHT = 160;
const KEY_STEP = 24;

function clampHeight(height: number, view: Window | null): number {
  const max = Math.max(MIN_HEIGHT, (view?.innerHeight ?? 800) - 40);
  return Math.round(Math.min(max, Math.max(MIN_HEIGHT, height)));
}

/**
 * A small toggle button that opens the panel docked to the bottom of the viewport; the dock's top
 * edge resizes it (drag, or arrow keys when focused). The panel reads the store only while open.
 */
export function Floating(props: Omit<PanelProps, 'onClose'>) {
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const view = () => toggleRef.current?.ownerDocument.defaultView ?? null;
  const [height, setHeight] = useState(360);
  const [sized, setSized] = useState(false);
  // Ends a drag in progress: the listeners it added go with the panel when it unmounts mid-drag.
  const endDrag = useRef<(() => void) | undefined>(undefined);
  useEffect(() => () => endDrag.current?.(), []);

  const openDock = () => {
    // Half the window the first time: room for the list and a selected entry.
    if (!sized) setHeight(clampHeight((view()?.innerHeight ?? 720) / 2, view()));
    setSized(true);
    setOpen(true);
  };

  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };

  const onPointerDown = (event: PointerEvent) => {
    const handle = event.currentTarget as HTMLElement;
    handle.setPointerCapture(event.pointerId);
    const move = (moved: PointerEvent) => setHeight(clampHeight((view()?.innerHeight ?? 800) - moved.clientY, view()));
    setSized(true);
    const stop = () => {
      endDrag.current = undefined;
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', stop);
      handle.removeEventListener('pointercancel', stop);
    };
    endDrag.current?.();
    endDrag.current = stop;
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', stop);
    handle.addEventListener('pointercancel', stop);
  };

  const onResizeKey = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowUp' ? KEY_STEP : event.key === 'ArrowDown' ? -KEY_STEP : 0;
    if (step === 0) return;
    event.preventDefault();
    setHeight(clampHeight(height + step, view()));
    setSized(true);
  };

  return (
    <>
      <button
        ref={toggleRef}
        type="button"
        class="toggle"
        aria-expanded={open}
        aria-controls="inspector-dock"
        onClick={() => (open ? close() : openDock())}
      >
        {open ? 'Hide tool outputs' : 'Tool outputs'}
      </button>
      {open && (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape closes the dock from anywhere inside it
        <div
          id="inspector-dock"
          class="dock"
          style={{ height: `${height}px` }}
          onKeyDown={(event) => event.key === 'Escape' && (event.target as Element).tagName !== 'INPUT' && close()}
        >
          {/* biome-ignore lint/a11y/useSemanticElements: an <hr> cannot be focused and dragged */}
          <div
            class="resize"
            role="separator"
            aria-orientation="horizontal"
            aria-label="Resize the inspector"
            aria-valuenow={height}
            aria-valuemin={MIN_HEIGHT}
            tabIndex={0}
            onPointerDown={onPointerDown}
            onKeyDown={onResizeKey}
          />
          <Panel {...props} onClose={close} />
        </div>
      )}
    </>
  );
}
