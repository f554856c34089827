import { formatBytes } from '../format.js';
import type { StoreInfo } from '../source/store-info.js';

/** "whole site on disk (browser quota): 12 MiB of 1.2 GiB · persisted", or undefined when the store's side did not say. */
function originStorageText(info: StoreInfo): string | undefined {
  if (info.usage === undefined) return undefined;
  const size =
    info.quota === undefined
      ? `${formatBytes(info.usage)} used`
      : `${formatBytes(info.usage)} of ${formatBytes(info.quota)}`;
  const persisted = info.persisted === undefined ? '' : info.persisted ? ' · persisted' : ' · not persisted';
  return `whole site on disk (browser quota): ${size}${persisted}`;
}

/** The origin's usage and quota (all its storage, not only the offload's), where the store tells. */
export function OriginStorage({ info }: { info: StoreInfo }) {
  const text = originStorageText(info);
  if (text === undefined) return null;
  const persisted =
    info.persisted === undefined
      ? ''
      : info.persisted
        ? ' The browser keeps it under storage pressure.'
        : ' The browser may clear it under storage pressure.';
  return (
    <>
      {/* Its own item of the header: "this window · whole site on disk…", never run together. */}
      <span class="sep" aria-hidden="true">
        ·
      </span>
      <span
        class="muted origin-storage"
        title={`What this origin stores in all (IndexedDB, caches…), from navigator.storage.estimate().${persisted}`}
      >
        {text}
      </span>
    </>
  );
}
