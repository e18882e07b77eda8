import {
  METHOD_DEFINITIONS,
  MODEL_METHODS,
  settingDefaults,
  settingsCatalogue,
  type CataloguedSetting,
} from './methods-registry.js';
import type { SettingInfo } from './settings.js';

/** A table cell: pipes escaped, line breaks folded. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function row(cells: readonly string[]): string {
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** How a setting is written on the command line, with its value's name. */
export function flagOf(info: SettingInfo): string {
  return info.arg ? `--${info.flag} ${info.arg}` : `--${info.flag}`;
}

function defaultsCell(s: CataloguedSetting): string {
  const methods = () =>
    settingDefaults({ ...s, methods: s.methods.map((m) => ({ ...m, default: undefined })) });
  if (s.info.kind === 'switch') return `${methods()}: off`;
  if (s.info.kind === 'off-switch') return `${methods()}: on`;
  if (s.info.kind === 'date') return `${methods()}: the clock's date`;
  return settingDefaults(s);
}

/**
 * The methods with models and their settings as two Markdown tables, made from the
 * methods' definitions (the docs' methods table is this text, checked by a test): per
 * method its paper, steps, calls per topic and how to run the paper's setting (with the
 * paper's values where they differ from the defaults); per setting its flag and API key,
 * the methods that take it with their defaults, and what it does.
 */
export function methodsReference(): string {
  const methods = [
    row(['method', 'paper', 'steps', 'calls per topic', "the paper's setting"]),
    row(['---', '---', '---', '---', '---']),
    ...MODEL_METHODS.map((name) => {
      const d = METHOD_DEFINITIONS[name];
      const paperValues = Object.values(d.settings)
        .filter((s) => s.info.paper !== undefined)
        .map((s) => `\`--${s.info.flag}\`: ${s.info.paper}`);
      const reproduce = paperValues.length
        ? `${d.reproduce} Paper values: ${paperValues.join('; ')}.`
        : d.reproduce;
      return row([`\`${name}\``, d.paper, d.steps, d.calls, reproduce]);
    }),
  ];
  const settings = [
    row(['flag (API `settings` key)', 'methods: default', 'what it does']),
    row(['---', '---', '---']),
    ...settingsCatalogue().map((s) =>
      row([`\`${flagOf(s.info)}\` (\`${s.key}\`)`, defaultsCell(s), s.info.help]),
    ),
  ];
  return `${methods.join('\n')}\n\n${settings.join('\n')}\n`;
}
