// The token benchmark's task suite (docs/tokens.md). Each task has: a category; `search` (and `describe`), the
// searches an agent makes in code mode before it writes code; `code(ctx)`, its reference solution run by `execute`;
// `direct(tools, ctx)`, its reference trajectory of direct tool calls (every call a turn unless made in `parallel`),
// returning the final answer the model gives after reading the results; and `check(answer)`, the checker of that
// answer, computed from the fixtures independently of both. `ctx.root` is the filesystem server's folder, `ctx.mode`
// `code` or `direct` (a task that writes names its file after the mode, so that the modes do not see each other's).
import customers from '../../capabilities/data/customers.json' with { type: 'json' };
import trains from '../../capabilities/data/trains.json' with { type: 'json' };
import { ACCOUNTS, ARCHIVE, CITIES, INVENTORY, NOTE_FILES, ORDERS, PEOPLE, REPORT } from './fixtures.mjs';

const CELSIUS = { 'san francisco': 17, london: 12, tokyo: 22, sydney: 25, 'new york': 9, berlin: 7 };
const round2 = (n) => Math.round(n * 100) / 100;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const near = (a, b) => typeof a === 'number' && Math.abs(a - b) < 0.011;

const FS = "import { filesystem } from '@capabilities/mcp-filesystem';";
const MEM = "import { memory } from '@capabilities/mcp-memory';";
const CRM = "import { crm } from '@capabilities/company-crm';";
const TRAINS = "import { trainSchedule } from '@capabilities/train-schedule';";
const WEATHER = "import { weather } from '@capabilities/weather';";
const NOTES = "import { notes } from '@capabilities/notes';";
const EVERYTHING = "import { everything } from '@capabilities/mcp-everything';";
/** Agent code's CSV reader of orders.csv (a line of code the agent writes each time). */
const READ_ORDERS = (root) =>
  `const csv = (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/orders.csv`)} })).content;
const orders = csv.trim().split('\\n').slice(1).map((l) => { const [id, customerId, amount, date, status] = l.split(','); return { id, customerId, amount: Number(amount), date, status }; });`;
/** The model's own reading of orders.csv in direct mode (it reads the whole file, then reasons over it). */
const parseOrders = (csv) =>
  csv.trim().split('\n').slice(1).map((l) => {
    const [id, customerId, amount, date, status] = l.split(',');
    return { id, customerId, amount: Number(amount), date, status };
  });
const paid = ORDERS.filter((o) => o.status === 'paid');
const avg = (xs) => xs.reduce((t, x) => t + x, 0) / xs.length;
const topBy = (os) => {
  const totals = {};
  for (const o of os) totals[o.customerId] = (totals[o.customerId] ?? 0) + o.amount;
  return Object.entries(totals).sort((a, b) => b[1] - a[1])[0][0];
};
const personOf = (entity) => Object.fromEntries(entity.observations.filter((o) => o.includes(': ')).map((o) => o.split(': ')));

export const TASKS = [
  // ── direct-best: one call answers it; code mode still searches and writes a script.
  {
    id: 'weather-tokyo',
    category: 'direct-best',
    search: ['current weather city'],
    code: () => `${WEATHER}\nreturn (await weather.getWeather({ location: 'Tokyo' })).temperature;`,
    direct: async ({ call, cap }) => (await call(cap('weather_getWeather', { location: 'Tokyo' }))).temperature,
    check: (a) => a === 22,
  },
  {
    id: 'add-numbers',
    category: 'direct-best',
    search: ['add two numbers sum'],
    code: () => `${EVERYTHING}\nreturn (await everything.getSum({ a: 1234, b: 4321 })).text;`,
    direct: async ({ call, everything }) => call(everything('get-sum', { a: 1234, b: 4321 })),
    check: (a) => String(a).includes('5555'),
  },
  {
    id: 'customer-email',
    category: 'direct-best',
    search: ['search customers'],
    code: () => `${CRM}\nreturn (await crm.searchCustomers({ query: 'Priya' }))[0]?.email;`,
    direct: async ({ call, cap }) => (await call(cap('company-crm_searchCustomers', { query: 'Priya' })))[0].email,
    check: (a) => a === 'priya@brightlabs.example',
  },
  {
    id: 'train-operator',
    category: 'direct-best',
    search: ['train details operator'],
    code: () => `${TRAINS}\nreturn (await trainSchedule.getTrainDetails({ trainId: 'CX301' })).operator;`,
    direct: async ({ call, cap }) => (await call(cap('train-schedule_getTrainDetails', { trainId: 'CX301' }))).operator,
    check: (a) => a === 'Coastal Express',
  },
  {
    id: 'read-note-file',
    category: 'direct-best',
    search: ['read text file'],
    code: ({ root }) => `${FS}\nreturn (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/notes/note-03.txt`)} })).content.split('\\n')[0];`,
    direct: async ({ call, fs }, { root }) => String(await call(fs('read_text_file', { path: `${root}/notes/note-03.txt` }))).split('\n')[0],
    check: (a) => a === NOTE_FILES[2].text.split('\n')[0],
  },
  {
    id: 'person-city',
    category: 'direct-best',
    search: ['open nodes knowledge graph'],
    code: () => `${MEM}\nconst { entities } = await memory.openNodes({ names: [${JSON.stringify(PEOPLE[4].name)}] });\nreturn entities[0]!.observations.find((o) => o.startsWith('city: '))!.slice(6);`,
    direct: async ({ call, memory }) => personOf((await call(memory('open_nodes', { names: [PEOPLE[4].name] }))).entities[0]).city,
    check: (a) => a === PEOPLE[4].city,
  },

  // ── aggregate: one big list read, one small figure wanted.
  ...[
    ['paid-total', 'Total amount of the paid orders', (os) => round2(os.filter((o) => o.status === 'paid').reduce((t, o) => t + o.amount, 0)), 'round(orders.filter((o) => o.status === "paid").reduce((t, o) => t + o.amount, 0))'],
    ['refund-count', 'How many orders were refunded', (os) => os.filter((o) => o.status === 'refunded').length, 'orders.filter((o) => o.status === "refunded").length'],
    ['top-customer', 'The customer with the largest paid total', (os) => topBy(os.filter((o) => o.status === 'paid')), 'topBy(orders.filter((o) => o.status === "paid"))'],
    ['march-average', 'Average amount of the orders of March', (os) => round2(avg(os.filter((o) => o.date.startsWith('2026-03')).map((o) => o.amount))), 'round(avg(orders.filter((o) => o.date.startsWith("2026-03")).map((o) => o.amount)))'],
    ['big-orders', 'How many orders are over 400', (os) => os.filter((o) => o.amount > 400).length, 'orders.filter((o) => o.amount > 400).length'],
  ].map(([id, , answer, expression]) => ({
    id,
    category: 'aggregate',
    search: ['read text file'],
    code: ({ root }) => `${FS}\n${HELPERS}\n${READ_ORDERS(root)}\nreturn ${expression};`,
    direct: async ({ call, fs }, { root }) => answer(parseOrders(String(await call(fs('read_text_file', { path: `${root}/orders.csv` }))))),
    check: (a) => same(a, answer(ORDERS)),
  })),
  {
    id: 'warehouse-stock',
    category: 'aggregate',
    search: ['read text file'],
    code: ({ root }) => `${FS}\nconst items: { qty: number; warehouse: string }[] = JSON.parse((await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/inventory.json`)} })).content);\nreturn items.filter((i) => i.warehouse === 'B').reduce((t, i) => t + i.qty, 0);`,
    direct: async ({ call, fs }, { root }) => (await call(fs('read_text_file', { path: `${root}/inventory.json` }))).filter((i) => i.warehouse === 'B').reduce((t, i) => t + i.qty, 0),
    check: (a) => a === INVENTORY.filter((i) => i.warehouse === 'B').reduce((t, i) => t + i.qty, 0),
  },

  // ── join: records of two servers put together.
  {
    id: 'enterprise-spend',
    category: 'join',
    search: ['search customers', 'read text file'],
    code: ({ root }) => `${FS}\n${CRM}\n${READ_ORDERS(root)}\nconst ids = new Set((await crm.searchCustomers({ query: '', limit: 100 })).filter((c) => c.tier === 'enterprise').map((c) => c.id));\nreturn Math.round(orders.filter((o) => o.status === 'paid' && ids.has(o.customerId)).reduce((t, o) => t + o.amount, 0) * 100) / 100;`,
    direct: async ({ parallel, fs, cap }, { root }) => {
      const [all, csv] = await parallel([cap('company-crm_searchCustomers', { query: '', limit: 100 }), fs('read_text_file', { path: `${root}/orders.csv` })]);
      const ids = new Set(all.filter((c) => c.tier === 'enterprise').map((c) => c.id));
      return round2(parseOrders(csv).filter((o) => o.status === 'paid' && ids.has(o.customerId)).reduce((t, o) => t + o.amount, 0));
    },
    check: (a) => near(a, round2(paid.filter((o) => ['cus_001', 'cus_002'].includes(o.customerId)).reduce((t, o) => t + o.amount, 0))),
  },
  {
    id: 'renewal-contacts',
    category: 'join',
    search: ['search nodes knowledge graph', 'search customers'],
    code: () => `${MEM}\n${CRM}\nconst { entities } = await memory.searchNodes({ query: 'renewal due' });\nconst companies = entities.filter((e) => e.entityType === 'account').map((e) => e.name);\nconst found = await Promise.all(companies.map((company) => crm.searchCustomers({ query: company })));\nreturn found.flat().filter((c) => companies.includes(c.company)).map((c) => c.email).sort();`,
    direct: async ({ call, parallel, memory, cap }) => {
      const companies = (await call(memory('search_nodes', { query: 'renewal due' }))).entities.filter((e) => e.entityType === 'account').map((e) => e.name);
      const found = await parallel(companies.map((company) => cap('company-crm_searchCustomers', { query: company })));
      return found.flat().filter((c) => companies.includes(c.company)).map((c) => c.email).sort();
    },
    check: (a) => same(a, customers.filter((c) => ACCOUNTS.some((x) => x.renewalDue && x.company === c.company)).map((c) => c.email).sort()),
  },
  {
    id: 'manager-weather',
    category: 'join',
    search: ['search nodes knowledge graph', 'current weather city'],
    code: () => `${MEM}\n${WEATHER}\nconst { entities } = await memory.searchNodes({ query: 'role: manager' });\nconst out: Record<string, number> = {};\nfor (const e of entities) { const city = e.observations.find((o) => o.startsWith('city: '))!.slice(6); out[e.name] = (await weather.getWeather({ location: city })).temperature; }\nreturn out;`,
    direct: async ({ call, parallel, memory, cap }) => {
      const people = (await call(memory('search_nodes', { query: 'role: manager' }))).entities.map((e) => [e.name, personOf(e).city]);
      const readings = await parallel([...new Set(people.map(([, city]) => city))].map((location) => cap('weather_getWeather', { location })));
      const byCity = Object.fromEntries([...new Set(people.map(([, city]) => city))].map((city, i) => [city, readings[i].temperature]));
      return Object.fromEntries(people.map(([name, city]) => [name, byCity[city]]));
    },
    check: (a) => same(a, Object.fromEntries(PEOPLE.filter((p) => p.role === 'manager').map((p) => [p.name, CELSIUS[p.city.toLowerCase()]]))),
  },
  {
    id: 'pro-order-count',
    category: 'join',
    search: ['search customers', 'read text file'],
    code: ({ root }) => `${FS}\n${CRM}\n${READ_ORDERS(root)}\nconst ids = new Set((await crm.searchCustomers({ query: '', limit: 100 })).filter((c) => c.tier === 'pro').map((c) => c.id));\nreturn orders.filter((o) => ids.has(o.customerId)).length;`,
    direct: async ({ parallel, fs, cap }, { root }) => {
      const [all, csv] = await parallel([cap('company-crm_searchCustomers', { query: '', limit: 100 }), fs('read_text_file', { path: `${root}/orders.csv` })]);
      const ids = new Set(all.filter((c) => c.tier === 'pro').map((c) => c.id));
      return parseOrders(csv).filter((o) => ids.has(o.customerId)).length;
    },
    check: (a) => a === ORDERS.filter((o) => customers.find((c) => c.id === o.customerId).tier === 'pro').length,
  },
  {
    id: 'free-tier-staff',
    category: 'join',
    search: ['search customers', 'read knowledge graph'],
    code: () => `${MEM}\n${CRM}\nconst free = new Set((await crm.searchCustomers({ query: '', limit: 100 })).filter((c) => c.tier === 'free').map((c) => c.company));\nconst { entities } = await memory.readGraph();\nreturn entities.filter((e) => e.entityType === 'person' && e.observations.some((o) => o.startsWith('works at ') && free.has(o.slice(9)))).length;`,
    direct: async ({ parallel, memory, cap }) => {
      const [all, graph] = await parallel([cap('company-crm_searchCustomers', { query: '', limit: 100 }), memory('read_graph')]);
      const free = new Set(all.filter((c) => c.tier === 'free').map((c) => c.company));
      return graph.entities.filter((e) => e.entityType === 'person' && e.observations.some((o) => o.startsWith('works at ') && free.has(o.slice(9)))).length;
    },
    check: (a) => a === PEOPLE.filter((p) => customers.some((c) => c.tier === 'free' && c.company === p.company)).length,
  },
  {
    id: 'refunds-by-email',
    category: 'join',
    search: ['search customers', 'read text file'],
    code: ({ root }) => `${FS}\n${CRM}\n${READ_ORDERS(root)}\nconst all = await crm.searchCustomers({ query: '', limit: 100 });\nconst out: Record<string, number> = {};\nfor (const o of orders.filter((o) => o.status === 'refunded')) { const email = all.find((c) => c.id === o.customerId)!.email; out[email] = (out[email] ?? 0) + 1; }\nreturn out;`,
    direct: async ({ parallel, fs, cap }, { root }) => {
      const [all, csv] = await parallel([cap('company-crm_searchCustomers', { query: '', limit: 100 }), fs('read_text_file', { path: `${root}/orders.csv` })]);
      const out = {};
      for (const o of parseOrders(csv).filter((x) => x.status === 'refunded')) {
        const email = all.find((c) => c.id === o.customerId).email;
        out[email] = (out[email] ?? 0) + 1;
      }
      return out;
    },
    check: (a) => {
      const want = {};
      for (const o of ORDERS.filter((x) => x.status === 'refunded')) {
        const email = customers.find((c) => c.id === o.customerId).email;
        want[email] = (want[email] ?? 0) + 1;
      }
      return same(a, want);
    },
  },

  // ── copy: a large document moved between tools; the model only needs to know it went through.
  {
    id: 'copy-report',
    category: 'copy',
    search: ['read text file', 'write file'],
    code: ({ root, mode }) => `${FS}\nconst { content } = await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/report.md`)} });\nawait filesystem.writeFile({ path: ${JSON.stringify(`${root}/report-copy-${mode}.md`)}, content });\nreturn (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/report-copy-${mode}.md`)} })).content.length;`,
    direct: async ({ call, fs }, { root, mode }) => {
      const content = await call(fs('read_text_file', { path: `${root}/report.md` }));
      await call(fs('write_file', { path: `${root}/report-copy-${mode}.md`, content }));
      return content.length;
    },
    check: (a) => a === REPORT.length,
  },
  {
    id: 'report-to-note',
    category: 'copy',
    search: ['read text file', 'create note'],
    code: ({ root }) => `${FS}\n${NOTES}\nconst { content } = await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/report.md`)} });\nconst section = content.split('## ')[3]!;\nconst note = await notes.create({ title: 'Section 3', content: section });\nreturn note.content.length;`,
    direct: async ({ call, fs, cap }, { root }) => {
      const section = String(await call(fs('read_text_file', { path: `${root}/report.md` }))).split('## ')[3];
      return (await call(cap('notes_create', { title: 'Section 3', content: section }))).content.length;
    },
    check: (a) => a === REPORT.split('## ')[3].length,
  },
  {
    id: 'graph-to-csv',
    category: 'copy',
    search: ['read knowledge graph', 'write file'],
    code: ({ root, mode }) => `${MEM}\n${FS}\nconst { entities } = await memory.readGraph();\nconst rows = entities.filter((e) => e.entityType === 'person').map((e) => [e.name, ...e.observations.slice(0, 3)].join(','));\nawait filesystem.writeFile({ path: ${JSON.stringify(`${root}/people-${mode}.csv`)}, content: rows.join('\\n') });\nreturn rows.length;`,
    direct: async ({ call, memory, fs }, { root, mode }) => {
      const rows = (await call(memory('read_graph'))).entities.filter((e) => e.entityType === 'person').map((e) => [e.name, ...e.observations.slice(0, 3)].join(','));
      await call(fs('write_file', { path: `${root}/people-${mode}.csv`, content: rows.join('\n') }));
      return rows.length;
    },
    check: (a) => a === PEOPLE.length,
  },
  {
    id: 'schedule-to-file',
    category: 'copy',
    search: ['train schedule', 'write file'],
    code: ({ root, mode }) => `${TRAINS}\n${FS}\nconst trips = await trainSchedule.getSchedule({});\nawait filesystem.writeFile({ path: ${JSON.stringify(`${root}/schedule-${mode}.txt`)}, content: trips.map((t) => \`\${t.id} \${t.hour}:\${t.minute} \${t.destination}\`).join('\\n') });\nreturn trips.length;`,
    direct: async ({ call, cap, fs }, { root, mode }) => {
      const trips = await call(cap('train-schedule_getSchedule', {}));
      await call(fs('write_file', { path: `${root}/schedule-${mode}.txt`, content: trips.map((t) => `${t.id} ${t.hour}:${t.minute} ${t.destination}`).join('\n') }));
      return trips.length;
    },
    // Trains that run on weekdays only are left out on a weekend day.
    check: (a) => Number.isInteger(a) && a >= trains.trips.filter((t) => !t.weekdaysOnly).length && a <= trains.trips.length,
  },
  {
    id: 'notes-to-graph',
    category: 'copy',
    search: ['read multiple files', 'add observations knowledge graph'],
    code: ({ root }) => `${FS}\n${MEM}\nconst names = ${JSON.stringify(NOTE_FILES.slice(0, 4).map((n) => n.name))};\nconst texts = await Promise.all(names.map(async (n) => (await filesystem.readTextFile({ path: ${JSON.stringify(root)} + '/notes/' + n })).content));\nawait memory.addObservations({ observations: [{ entityName: ${JSON.stringify(PEOPLE[0].name)}, contents: texts }] });\nreturn texts.length;`,
    direct: async ({ parallel, call, fs, memory }, { root }) => {
      const texts = await parallel(NOTE_FILES.slice(0, 4).map((n) => fs('read_text_file', { path: `${root}/notes/${n.name}` })));
      await call(memory('add_observations', { observations: [{ entityName: PEOPLE[0].name, contents: texts.map(String) }] }));
      return texts.length;
    },
    check: (a) => a === 4,
  },

  // ── loop: lookups that depend on earlier results.
  {
    id: 'central-operators',
    category: 'loop',
    search: ['train schedule station', 'train details operator'],
    code: () => `${TRAINS}\nconst trips = await trainSchedule.getSchedule({ station: 'Central' });\nconst details = await Promise.all(trips.map((t) => trainSchedule.getTrainDetails({ trainId: t.id })));\nreturn [...new Set(details.map((d) => d.operator))].sort();`,
    direct: async ({ call, parallel, cap }) => {
      const trips = await call(cap('train-schedule_getSchedule', { station: 'Central' }));
      const details = await parallel(trips.map((t) => cap('train-schedule_getTrainDetails', { trainId: t.id })));
      return [...new Set(details.map((d) => d.operator))].sort();
    },
    check: (a) => Array.isArray(a) && a.length > 0 && a.every((op) => trains.trips.some((t) => t.station === 'Central' && t.operator === op)),
  },
  {
    id: 'central-stops',
    category: 'loop',
    search: ['train schedule station', 'train details stops'],
    code: () => `${TRAINS}\nconst trips = await trainSchedule.getSchedule({ station: 'Central' });\nlet stops = 0;\nfor (const t of trips) stops += (await trainSchedule.getTrainDetails({ trainId: t.id })).stops.length;\nreturn stops;`,
    direct: async ({ call, cap }) => {
      const trips = await call(cap('train-schedule_getSchedule', { station: 'Central' }));
      let stops = 0;
      // One lookup after the other, as a model that reads each answer before the next call.
      for (const t of trips) stops += (await call(cap('train-schedule_getTrainDetails', { trainId: t.id }))).stops.length;
      return stops;
    },
    check: (a) => typeof a === 'number' && a > 0,
  },
  {
    id: 'todo-count',
    category: 'loop',
    search: ['list directory', 'read multiple files'],
    code: ({ root }) => `${FS}\nconst list = (await filesystem.listDirectory({ path: ${JSON.stringify(`${root}/notes`)} })).content;\nconst names = list.split('\\n').filter((l) => l.startsWith('[FILE]')).map((l) => l.slice(7));\nlet todos = 0;\nfor (const n of names) todos += (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/notes/`)} + n })).content.split('\\n').filter((l) => l.startsWith('TODO')).length;\nreturn todos;`,
    direct: async ({ call, fs }, { root }) => {
      const names = String(await call(fs('list_directory', { path: `${root}/notes` }))).split('\n').filter((l) => l.startsWith('[FILE]')).map((l) => l.slice(7));
      const text = String(await call(fs('read_multiple_files', { paths: names.map((n) => `${root}/notes/${n}`) })));
      return text.split('\n').filter((l) => l.startsWith('TODO')).length;
    },
    check: (a) => a === NOTE_FILES.reduce((t, n) => t + n.text.split('\n').filter((l) => l.startsWith('TODO')).length, 0),
  },
  {
    id: 'team-cities',
    category: 'loop',
    search: ['search nodes knowledge graph', 'open nodes'],
    code: () => `${MEM}\nconst { relations } = await memory.readGraph();\nconst team = relations.filter((r) => r.relationType === 'reports_to' && r.to === ${JSON.stringify(PEOPLE[0].name)}).map((r) => r.from);\nconst { entities } = await memory.openNodes({ names: team });\nreturn [...new Set(entities.map((e) => e.observations.find((o) => o.startsWith('city: '))!.slice(6)))].sort();`,
    direct: async ({ call, memory }) => {
      const { relations } = await call(memory('read_graph'));
      const team = relations.filter((r) => r.relationType === 'reports_to' && r.to === PEOPLE[0].name).map((r) => r.from);
      const { entities } = await call(memory('open_nodes', { names: team }));
      return [...new Set(entities.map((e) => personOf(e).city))].sort();
    },
    check: (a) => same(a, [...new Set(PEOPLE.filter((p) => p.manager === PEOPLE[0].name).map((p) => p.city))].sort()),
  },
  {
    id: 'warmest-city',
    category: 'loop',
    search: ['current weather city'],
    code: () => `${WEATHER}\nconst cities = ${JSON.stringify(CITIES)};\nconst readings = await Promise.all(cities.map(async (c) => [c, (await weather.getWeather({ location: c })).temperature] as const));\nreturn readings.sort((a, b) => b[1] - a[1])[0]![0];`,
    direct: async ({ parallel, cap }) => {
      const readings = await parallel(CITIES.map((location) => cap('weather_getWeather', { location })));
      return CITIES[readings.map((r) => r.temperature).indexOf(Math.max(...readings.map((r) => r.temperature)))];
    },
    check: (a) => a === 'Sydney',
  },
  {
    id: 'customers-in-graph',
    category: 'loop',
    search: ['search customers', 'search nodes knowledge graph'],
    code: () => `${CRM}\n${MEM}\nconst all = await crm.searchCustomers({ query: 'acme', limit: 100 });\nconst found: string[] = [];\nfor (const c of all) if ((await memory.searchNodes({ query: c.company })).entities.some((e) => e.entityType === 'account')) found.push(c.name);\nreturn found.sort();`,
    direct: async ({ call, cap, memory }) => {
      const all = await call(cap('company-crm_searchCustomers', { query: 'acme', limit: 100 }));
      const found = [];
      for (const c of all) if ((await call(memory('search_nodes', { query: c.company }))).entities.some((e) => e.entityType === 'account')) found.push(c.name);
      return found.sort();
    },
    check: (a) => same(a, customers.filter((c) => /acme/i.test(`${c.name} ${c.email} ${c.company}`) && ACCOUNTS.some((x) => x.company === c.company)).map((c) => c.name).sort()),
  },

  // ── small multi-step: a few calls with small results, where direct calls are close.
  {
    id: 'customer-note',
    category: 'small-steps',
    search: ['search customers', 'create note'],
    code: () => `${CRM}\n${NOTES}\nconst [c] = await crm.searchCustomers({ query: 'fjord' });\nreturn (await notes.create({ title: 'Call ' + c!.name, content: 'Call ' + c!.email })).title;`,
    direct: async ({ call, cap }) => {
      const [c] = await call(cap('company-crm_searchCustomers', { query: 'fjord' }));
      return (await call(cap('notes_create', { title: `Call ${c.name}`, content: `Call ${c.email}` }))).title;
    },
    check: (a) => a === 'Call Oskar Lind',
  },
  {
    id: 'sum-temperatures',
    category: 'small-steps',
    search: ['current weather city', 'add two numbers sum'],
    code: () => `${WEATHER}\n${EVERYTHING}\nconst [a, b] = await Promise.all(['London', 'Berlin'].map(async (l) => (await weather.getWeather({ location: l })).temperature));\nreturn (await everything.getSum({ a: a!, b: b! })).text;`,
    direct: async ({ call, parallel, cap, everything }) => {
      const [a, b] = await parallel(['London', 'Berlin'].map((location) => cap('weather_getWeather', { location })));
      return call(everything('get-sum', { a: a.temperature, b: b.temperature }));
    },
    check: (a) => String(a).includes('19'),
  },
  {
    id: 'echo-operator',
    category: 'small-steps',
    search: ['train details operator', 'echo message'],
    code: () => `${TRAINS}\n${EVERYTHING}\nconst { operator } = await trainSchedule.getTrainDetails({ trainId: 'RL101' });\nreturn (await everything.echo({ message: operator })).text;`,
    direct: async ({ call, cap, everything }) => call(everything('echo', { message: (await call(cap('train-schedule_getTrainDetails', { trainId: 'RL101' }))).operator })),
    check: (a) => String(a).includes('Regional Lines'),
  },
  {
    id: 'first-departure',
    category: 'small-steps',
    search: ['train schedule station'],
    code: () => `${TRAINS}\nconst trips = await trainSchedule.getSchedule({ station: 'Central' });\nconst t = trips.sort((a, b) => a.hour * 60 + a.minute - (b.hour * 60 + b.minute))[0]!;\nreturn \`\${String(t.hour).padStart(2, '0')}:\${String(t.minute).padStart(2, '0')}\`;`,
    direct: async ({ call, cap }) => {
      const t = (await call(cap('train-schedule_getSchedule', { station: 'Central' }))).sort((a, b) => a.hour * 60 + a.minute - (b.hour * 60 + b.minute))[0];
      return `${String(t.hour).padStart(2, '0')}:${String(t.minute).padStart(2, '0')}`;
    },
    check: (a) => a === '05:42',
  },
  {
    id: 'structured-weather',
    category: 'small-steps',
    search: ['structured content weather location'],
    code: () => `${EVERYTHING}\nconst r = await everything.getStructuredContent({ location: 'New York' });\nreturn r.temperature;`,
    direct: async ({ call, everything }) => (await call(everything('get-structured-content', { location: 'New York' }))).temperature,
    check: (a) => typeof a === 'number',
  },

  // ── large results: the answer is small, the results a model would read are not.
  {
    id: 'badge-owner',
    category: 'large-results',
    search: ['read knowledge graph'],
    code: () => `${MEM}\nconst { entities } = await memory.readGraph();\nreturn entities.find((e) => e.observations.includes('badge: ${PEOPLE[17].badge}'))?.name;`,
    direct: async ({ call, memory }) => (await call(memory('read_graph'))).entities.find((e) => e.observations.includes(`badge: ${PEOPLE[17].badge}`))?.name,
    check: (a) => a === PEOPLE[17].name,
  },
  {
    id: 'count-people',
    category: 'large-results',
    search: ['read knowledge graph'],
    code: () => `${MEM}\nreturn (await memory.readGraph()).entities.filter((e) => e.entityType === 'person').length;`,
    direct: async ({ call, memory }) => (await call(memory('read_graph'))).entities.filter((e) => e.entityType === 'person').length,
    check: (a) => a === PEOPLE.length,
  },
  {
    id: 'joined-before-2018',
    category: 'large-results',
    search: ['read knowledge graph'],
    code: () => `${MEM}\nconst { entities } = await memory.readGraph();\nreturn entities.filter((e) => e.observations.some((o) => o.startsWith('joined: ') && Number(o.slice(8)) < 2018)).map((e) => e.name).sort();`,
    direct: async ({ call, memory }) => (await call(memory('read_graph'))).entities.filter((e) => Number(personOf(e).joined) < 2018).map((e) => e.name).sort(),
    check: (a) => same(a, PEOPLE.filter((p) => p.joined < 2018).map((p) => p.name).sort()),
  },
  {
    id: 'count-logs',
    category: 'large-results',
    search: ['search files pattern'],
    code: ({ root }) => `${FS}\nreturn (await filesystem.searchFiles({ path: ${JSON.stringify(root)}, pattern: '**/*.log' })).content.split('\\n').filter(Boolean).length;`,
    direct: async ({ call, fs }, { root }) => String(await call(fs('search_files', { path: root, pattern: '**/*.log' }))).split('\n').filter(Boolean).length,
    check: (a) => a === ARCHIVE.filter((file) => file.endsWith('.log')).length,
  },
  {
    id: 'report-words',
    category: 'large-results',
    search: ['read text file'],
    code: ({ root }) => `${FS}\nreturn (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/report.md`)} })).content.split(/\\s+/).filter(Boolean).length;`,
    direct: async ({ call, fs }, { root }) => String(await call(fs('read_text_file', { path: `${root}/report.md` }))).split(/\s+/).filter(Boolean).length,
    check: (a) => a === REPORT.split(/\s+/).filter(Boolean).length,
  },
  {
    id: 'latency-lines',
    category: 'large-results',
    search: ['read text file'],
    code: ({ root }) => `${FS}\nreturn (await filesystem.readTextFile({ path: ${JSON.stringify(`${root}/report.md`)} })).content.split('\\n').filter((l) => l.includes('latency')).length;`,
    direct: async ({ call, fs }, { root }) => String(await call(fs('read_text_file', { path: `${root}/report.md` }))).split('\n').filter((l) => l.includes('latency')).length,
    check: (a) => a === REPORT.split('\n').filter((l) => l.includes('latency')).length,
  },
  {
    id: 'largest-file',
    category: 'large-results',
    search: ['list directory sizes'],
    code: ({ root }) => `${FS}\nconst text = (await filesystem.listDirectoryWithSizes({ path: ${JSON.stringify(root)}, sortBy: 'size' })).content;\nreturn text.split('\\n').find((l) => l.startsWith('[FILE]'))!.slice(7).trim().split(/\\s+/)[0];`,
    direct: async ({ call, fs }, { root }) => String(await call(fs('list_directory_with_sizes', { path: root, sortBy: 'size' }))).split('\n').find((l) => l.startsWith('[FILE]')).slice(7).trim().split(/\s+/)[0],
    check: (a) => a === 'report.md' || String(a).startsWith('report'),
  },
];

/** Helpers agent code defines for the aggregate tasks (a few lines it writes each time). */
const HELPERS = `const round = (n: number) => Math.round(n * 100) / 100;
const avg = (xs: number[]) => xs.reduce((t, x) => t + x, 0) / xs.length;
const topBy = (os: { customerId: string; amount: number }[]) => { const t: Record<string, number> = {}; for (const o of os) t[o.customerId] = (t[o.customerId] ?? 0) + o.amount; return Object.entries(t).sort((a, b) => b[1] - a[1])[0]![0]; };`;
