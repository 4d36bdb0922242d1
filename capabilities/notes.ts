// A small notes capability used by the main demo. Notes live in memory on the host for as long as the process runs.
import { defineTool } from '@agent-spaces/capabilities';

/** A saved note. */
interface Note {
  /** Assigned on creation: `note-1`, `note-2`, ... */
  id: string;
  title: string;
  content: string;
  /** ISO-8601 timestamp. */
  createdAt: string;
}

const notesById = new Map<string, Note>();

export const notes = defineTool({
  name: 'notes',
  description: 'Create and list notes',
  version: '1.0.0',

  functions: {
    create: {
      description: 'Create a note',
      parameters: {
        title: { type: 'string', required: true, minLength: 1, description: 'Short title' },
        content: { type: 'string', required: true, description: 'Note body (plain text)' },
      },
      returns: {} as Note,
      handler: async ({ title, content }) => {
        const note: Note = { id: `note-${notesById.size + 1}`, title, content, createdAt: new Date().toISOString() };
        notesById.set(note.id, note);
        return note;
      },
    },

    list: {
      description: 'List every note, oldest first',
      returns: {} as Note[],
      handler: async () => [...notesById.values()],
    },
  },
});
