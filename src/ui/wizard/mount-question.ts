/**
 * Format+mount is asked, never assumed: what answering yes does to this LUN, in the wizard's status
 * line (it wraps). The engine's format-and-mount step (attach-volume.ts, kubelet's
 * SafeFormatAndMount) formats only a device blkid finds blank and mounts an existing filesystem as
 * it is, so the question names what the listing saw on the LUN.
 */
import type { WizardState } from './wizard-model.js';

/** The question for the Volume step, or nothing once Format+mount is answered (or Block is on). */
export function mountQuestion(w: WizardState): string | undefined {
  const f = w.fields;
  if (f.block === 'true' || f.mount === 'true' || f.mount === 'false') return undefined;
  const lun = f.lun?.trim() ?? '';
  const listed = w.luns?.list.find((l) => String(l.lun) === lun);
  const fs = f.fsType?.trim() || 'ext4';
  const what = listed?.fsType
    ? `LUN ${lun} already holds a filesystem (${listed.fsType}): yes mounts it as it is (never formats it); mount it only if no other node has it mounted`
    : listed
      ? `LUN ${lun} shows no filesystem: yes formats it (mkfs.${fs}, only if blkid still finds it blank) and mounts it`
      : `yes formats LUN ${lun || '?'} only if blkid finds it blank (mkfs.${fs}) and mounts it; an existing filesystem is mounted as it is`;
  return `Format+mount? ${what}; no logs in and writes iscsi.json only. space on Format+mount answers.`;
}

/** The status when ⏎ found errors: the mount question when it is all that is left, else the usual. */
export function fixStatus(w: WizardState, errors: Record<string, string>): string {
  const onlyMount = errors.mount !== undefined && Object.keys(errors).length === 1;
  return (onlyMount && mountQuestion(w)) || 'fix the marked field';
}
