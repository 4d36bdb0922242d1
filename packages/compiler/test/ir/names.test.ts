import { describe, expect, it } from 'vitest';
import { NameAllocator, camelCase, identifier, isModuleId, kebabCase, pascalCase, typeName } from '../../src/ir/names.js';

describe('casing', () => {
  it('camelCases snake, kebab, Pascal and acronym names and keeps camelCase names', () => {
    expect(camelCase('list_channels')).toBe('listChannels');
    expect(camelCase('API-get-user')).toBe('apiGetUser');
    expect(camelCase('GetWeather')).toBe('getWeather');
    expect(camelCase('HTTPServer')).toBe('httpServer');
    expect(camelCase('getTrainDetails')).toBe('getTrainDetails');
    expect(camelCase('get weather now!')).toBe('getWeatherNow');
  });

  it('PascalCases type names and kebab-cases module ids', () => {
    expect(pascalCase('get_schedule')).toBe('GetSchedule');
    expect(pascalCase('getSchedule')).toBe('GetSchedule');
    expect(kebabCase('trainSchedule')).toBe('train-schedule');
    expect(kebabCase('train-schedule')).toBe('train-schedule');
    expect(kebabCase('Weather_API.v2')).toBe('weather-api-v2');
  });
});

describe('identifier', () => {
  it('prefixes a leading digit and suffixes reserved words', () => {
    expect(identifier('2fa_check')).toBe('_2faCheck');
    expect(identifier('delete')).toBe('delete_');
    expect(identifier('default')).toBe('default_');
    expect(identifier('import')).toBe('import_');
    expect(identifier('---')).toBe('_');
  });

  it('gives type names that never shadow built-in types', () => {
    expect(typeName('promise')).toBe('PromiseType');
    expect(typeName('3d-point')).toBe('T3dPoint');
    expect(typeName('trip')).toBe('Trip');
  });

  it('recognizes module ids', () => {
    expect(isModuleId('mcp-slack')).toBe(true);
    expect(isModuleId('Train')).toBe(false);
    expect(isModuleId('../x')).toBe(false);
  });
});

describe('NameAllocator', () => {
  it('hands out numbered names once a name is taken or reserved', () => {
    const names = new NameAllocator();
    names.reserve('Trip');
    expect(names.allocate('Trip')).toBe('Trip2');
    expect(names.allocate('Trip')).toBe('Trip3');
    expect(names.allocate('Stop')).toBe('Stop');
  });
});
