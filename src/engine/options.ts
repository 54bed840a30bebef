/** A command-line option, declared as data so help text is generated from it. */
export interface OptionSpec {
  name: string;
  type: 'boolean' | 'string';
  /** For string options: value may be omitted (`--demo` alone). */
  optionalValue?: boolean;
  /** Allowed more than once (collected as an array). */
  multiple?: boolean;
  short?: string;
  valueName?: string;
  description: string;
  default?: string | boolean;
  /**
   * A boolean action option the console's plan dialog offers as a toggle (tab), in the console's
   * words; the dialog re-plans through the same planner with the option set.
   */
  toggle?: string;
}
