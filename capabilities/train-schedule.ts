// The seed's train schedule capability, backed by a local timetable (capabilities/data/trains.json).
import { defineTool } from '@agent-spaces/capabilities';
import timetable from './data/trains.json' with { type: 'json' };

/** One departure in the timetable. */
interface Trip {
  /** Train id, e.g. `RL101`; pass it to `getTrainDetails`. */
  id: string;
  /** Departure hour, 0-23. */
  hour: number;
  minute: number;
  destination: string;
  platform: string;
}

/** Who runs a train and where it stops. */
interface TrainDetails {
  id: string;
  operator: string;
  /** Stations in order, from departure to destination. */
  stops: string[];
}

type TimetableEntry = (typeof timetable.trips)[number];

/** Trips on `date`: weekday-only trips do not run on Saturdays and Sundays. */
function runsOn(entry: TimetableEntry, date: string | undefined): boolean {
  if (date === undefined || !entry.weekdaysOnly) return true;
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
}

function checkDate(date: string | undefined): void {
  if (date !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))) {
    throw new Error(`date must be YYYY-MM-DD, got "${date}"`);
  }
}

export const trainSchedule = defineTool({
  name: 'trainSchedule',
  description: 'Get train schedule information',
  version: '1.0.0',

  functions: {
    getSchedule: {
      description: 'Get all scheduled trains',
      parameters: {
        station: { type: 'string', optional: true, description: 'Filter by departure station name' },
        date: { type: 'string', format: 'date', optional: true, description: 'Date to check (YYYY-MM-DD)' },
      },
      returns: {} as Trip[],
      handler: async ({ station, date }) => {
        checkDate(date);
        return timetable.trips
          .filter((entry) => station === undefined || entry.station.toLowerCase() === station.toLowerCase())
          .filter((entry) => runsOn(entry, date))
          .map(({ id, hour, minute, destination, platform }): Trip => ({ id, hour, minute, destination, platform }));
      },
    },

    getTrainDetails: {
      description: 'Get details for a specific train',
      parameters: {
        trainId: { type: 'string', required: true, description: 'Train id from getSchedule' },
      },
      returns: {} as TrainDetails,
      handler: async ({ trainId }) => {
        const entry = timetable.trips.find((trip) => trip.id === trainId);
        if (!entry) throw new Error(`No train with id "${trainId}"`);
        return { id: entry.id, operator: entry.operator, stops: [...entry.stops] };
      },
    },
  },

  config: {
    requiresApproval: false,
    rateLimit: { requests: 100, period: 'minute' },
  },
});
