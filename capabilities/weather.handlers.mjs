// Host handlers of capabilities/weather.json: a deterministic local "weather service" keyed by city (no network).
// The bridge imports this module and calls the export named after the function (`get_weather`).

/** Readings in Celsius by lower-case city name. */
const READINGS = {
  'san francisco': { celsius: 17, description: 'Fog in the morning, sunny later' },
  london: { celsius: 12, description: 'Light rain' },
  tokyo: { celsius: 22, description: 'Clear' },
  sydney: { celsius: 25, description: 'Sunny' },
  'new york': { celsius: 9, description: 'Overcast' },
  berlin: { celsius: 7, description: 'Windy, scattered showers' },
};

/**
 * @param {{ location: string, unit?: 'celsius' | 'fahrenheit' }} params
 * @returns {Promise<{ temperature: number, unit: string, description: string }>}
 */
export async function get_weather({ location, unit = 'celsius' }) {
  const reading = READINGS[location.trim().toLowerCase()];
  if (!reading) throw new Error(`No weather data for "${location}" (known: ${Object.keys(READINGS).join(', ')})`);
  const temperature = unit === 'fahrenheit' ? Math.round((reading.celsius * 9) / 5 + 32) : reading.celsius;
  return { temperature, unit, description: reading.description };
}
