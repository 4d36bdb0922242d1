import type { Redactor } from '@agent-spaces/capabilities';

/** The redactor of a bridge given none: every value and text as it is. */
export const NO_REDACTION: Redactor = {
  names: [],
  text: (text) => text,
  value: (value) => value,
};
