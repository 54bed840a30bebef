/**
 * The dialogs' states, as one union the UI store holds. Each dialog file adds its own state here by
 * declaration merging (`declare module './dialog-types.js' { interface DialogStates { … } }`), so
 * the store names every dialog without importing one: the dialog files sit above the store, the
 * import graph stays a tree, and a dialog is still one file (dialogs/registry.ts lists them).
 */

/** Dialog kind → that dialog's state (filled by the dialog files). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each dialog file
export interface DialogStates {}

export type DialogKind = keyof DialogStates;

export type Dialog = DialogStates[DialogKind];
