// The process table lives with the snapshot readers (CSI node plugins are looked up there too);
// doctor keeps importing it from here.
export { type ProcessTable, readProcessTable } from '../snapshot/processes.js';
