/**
 * The byte quota over every session's files together. Apart from the session folders and the tickets
 * because it is shared by all of them: an upload's declared size is reserved from its ticket on, an
 * artifact's while it is written, and a stored file is charged until its session ends — whoever holds
 * the bytes, the sum stays under one limit.
 */
import { DevCoreError } from '../errors.js';

/** All sessions' files together (`--asset-quota-mb`, default 1 024). */
export const DEFAULT_ASSET_QUOTA_BYTES = 1024 * 1024 * 1024;
/** A file counts at least this much against the quota (a disk block): empty files are not free. */
const MIN_FILE_CHARGE = 4096;

/** What a file of `sizeBytes` counts against the quota. */
export const chargeOf = (sizeBytes: number) => Math.max(sizeBytes, MIN_FILE_CHARGE);

/** Something that may hold a reservation: an upload ticket, an artifact being written. */
export type QuotaHolder = { reserved: number };

/** How a quota's refusal names it: its code, what it holds, and the flag that sets it. */
export type QuotaNames = { code: string; holds: string; flag: string };

const ASSET_QUOTA_NAMES: QuotaNames = {
  code: 'ASSET_QUOTA_EXCEEDED',
  holds: 'assets in all sessions together',
  flag: '--asset-quota-mb',
};

export class AssetQuota {
  /** The sum of every stored file's charge. */
  private storedBytes = 0;
  /** The sum of every reservation: upload tickets not used yet, uploads and artifacts being written. */
  private reservedBytes = 0;

  constructor(
    private readonly quotaBytes: number,
    private readonly names: QuotaNames = ASSET_QUOTA_NAMES,
  ) {}

  /** Takes `charge` bytes of the quota for `holder`, or throws its code (`ASSET_QUOTA_EXCEEDED`). */
  reserve(holder: QuotaHolder, charge: number, sizeBytes: number): void {
    if (charge === 0) return;
    const used = this.storedBytes + this.reservedBytes;
    if (used + charge > this.quotaBytes) {
      const { code, holds, flag } = this.names;
      throw new DevCoreError(
        code,
        `pedelec-dev keeps at most ${this.quotaBytes} bytes of ${holds} (${flag}); ` +
          `${Math.max(this.quotaBytes - used, 0)} are free`,
        { sizeBytes, quotaBytes: this.quotaBytes, usedBytes: used },
      );
    }
    this.reservedBytes += charge;
    holder.reserved = charge;
  }

  /** Gives back what `holder` reserved (once). */
  release(holder: QuotaHolder): void {
    this.reservedBytes -= holder.reserved;
    holder.reserved = 0;
  }

  /** A file was stored: its `charge` counts, in place of `replaced`, the charge of a file it overwrote. */
  store(charge: number, replaced: number): void {
    this.storedBytes += charge - replaced;
  }

  /** A stored file is gone (its session ended): its charge is free again. */
  unstore(charge: number): void {
    this.storedBytes -= charge;
  }
}
