/**
 * The engine's pure functions the console shows or checks with, in one list: the UI imports the
 * engine only through here (values) and `import type` (types), so a reviewer sees in one file every
 * domain fact the console uses, and each still has its one home in the engine. None of these reads
 * or changes the node; that goes through the ConsoleBackend (backend.ts).
 *
 * - attach-input: the attach input rules (the wizard puts each problem beside its field);
 * - attach-params: the attach parameters (the wizard's fields, `attach --help`'s flags);
 * - consent: which refusals hold and what the admin must type (one policy for CLI and console);
 * - decimal: the one strict parser for numbers an admin types (LUNs, sids);
 * - format: the plan text the CLI prints, which the Plan dialog lays out;
 * - lookup, lun, portal, csi/paths: names and addresses as the engine spells and checks them;
 * - doctor/format: the report symbols `iscsi-console doctor` prints;
 * - outages, recovery: the outage a down session belongs to, the kernel's recovery countdown;
 * - journal: how a journaled command ended (commandOutcome), as `status` and the CLI say it;
 * - fs-words, multipath-ll, pod-names: FSTYPE/LABEL/UUID, multipath -ll's topology and pod names,
 *   worded as lsblk, multipath -ll and kubectl show them (the session detail and `status` share them),
 *   with the kubectl commands that delete pods;
 * - fingerprint: a session, LUN or record key as "target @ portal (iface) LUN n" (events, blast radius);
 * - device-users: the volumes and pods behind a device or a map (the Devices view's POD, its detail);
 * - problems: the one rule for what is wrong (severity, one-line reason, summary, sort key);
 * - safe-text: node-sourced text made safe for a terminal;
 * - surface: a hint the engine words for the CLI, as the console says it (its keys for the flags);
 * - filter: the `/` filter language (`status --filter` parses the same), session-fields: a session's fields in it;
 * - status-json: the objects of `status --json` a row stands for (the console's `y`).
 */
export {
  type AttachField,
  attachInputProblems,
  chapValuesProblem,
} from '../engine/actions/attach-input.js';
export {
  type AttachParam,
  attachParamOfField,
  DEFAULT_FS_TYPE,
  DEFAULT_IFACE,
} from '../engine/actions/attach-params.js';
export { answerConsents, type Consent, consentFor } from '../engine/actions/consent.js';
export {
  commandText,
  overrideLines,
  type PlanLine,
  planLines,
  stepAction,
  stepNumber,
} from '../engine/actions/format.js';
export { commandOutcome } from '../engine/actions/journal.js';
export { describeBinds, recordKey } from '../engine/actions/lookup.js';
export { decimalOf } from '../engine/decimal.js';
export { STATUS_SYMBOL } from '../engine/doctor/format.js';
export { kubeletLunProblem, lunLabel } from '../engine/iscsi/lun.js';
export { addressFamily, parsePortal, portalProblem } from '../engine/iscsi/portal.js';
export { csiVolumeMounted, csiVolumeName, csiVolumePods } from '../engine/snapshot/csi/describe.js';
export { driverLabel } from '../engine/snapshot/csi/paths.js';
export {
  type DeviceUsers,
  deviceUsers,
  mapPaths,
  mapUsers,
  sessionOfDevice,
} from '../engine/snapshot/device-users.js';
export { downScopeOf, outageDownWords } from '../engine/snapshot/outages.js';
export {
  csiVolumePath,
  type ExpiredRecovery,
  inKubelet,
  type NodeProblems,
  nodeProblems,
  type Problem,
  problemContext,
  problemSortKey,
  sessionProblem,
  severityRank,
  targetProblem,
} from '../engine/snapshot/problems.js';
export { describeRecovery, recoveryClock } from '../engine/snapshot/recovery.js';
export { SESSION_FILTER_FIELDS, sessionFilterFields } from '../engine/snapshot/session-fields.js';
export { type StatusPart, type StatusRef, statusParts } from '../engine/snapshot/status-json.js';
export { clockTime, stuckProbeOf, stuckRecoveries } from '../engine/snapshot/stuck.js';
export {
  compileFilter,
  completeFilterField,
  type Filterable,
  filterError,
} from '../engine/text/filter.js';
export { fingerprintText } from '../engine/text/fingerprint.js';
export { fsWords } from '../engine/text/fs-words.js';
export { kubeletOnDetachText, metadataSourceText, metadataSourceWord } from '../engine/text/kubelet-words.js';
export { multipathLlLines, pathDown } from '../engine/text/multipath-ll.js';
export { plural } from '../engine/text/plural.js';
export { podLabel } from '../engine/text/pod-names.js';
export { portalMatrixCells } from '../engine/text/portal-matrix.js';
export { safeText } from '../engine/text/safe-text.js';
export { hintFor, type SurfaceAction } from '../engine/text/surface.js';
export { downWords, downWordsRoom, isoTime, utcClock, utcStamp } from '../engine/text/time.js';
/** Not the engine's: the watchers' event record, as `watch --json` prints it (the console's `y` on an event). */
export { eventRecord } from '../watchers/format-event.js';
