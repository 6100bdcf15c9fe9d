/**
 * gw's outputs as the spreadsheet programs and libraries finance uses open them: LibreOffice and
 * Gnumeric open a file with their default import and save it again; pandas reads it. Each is a
 * tool of the tests' authors, not of gw: where one is not installed, the check is skipped, and
 * said on stderr.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {basename, extname, join} from 'node:path'

import {tempDir} from './shared.js'

const installed = new Map<string, boolean>()
function has(tool: string, args: string[], installWith: string): boolean {
  if (!installed.has(tool)) {
    const ok = spawnSync(tool, args, {encoding: 'utf8'}).status === 0
    if (!ok) console.warn(`skipped what ${tool} makes of gw's outputs: it is not installed (${installWith})`)
    installed.set(tool, ok)
  }
  return installed.get(tool)!
}

/**
 * `path` opened by `program` as a person opens it (a CSV with the program's default import:
 * LibreOffice's as UTF-8 with commas, Gnumeric's by itself) and saved as `format`: the saved
 * file, or undefined when the program is not installed.
 */
export function savedBy(program: 'libreoffice' | 'gnumeric', path: string, format: 'csv' | 'xlsx'): string | undefined {
  const out = tempDir('gw-saved-')
  if (program === 'gnumeric') {
    if (!has('ssconvert', ['--version'], 'apt-get install gnumeric')) return undefined
    const saved = join(out, `${basename(path, extname(path))}.${format}`)
    execFileSync('ssconvert', [path, saved], {stdio: 'ignore', timeout: 120_000})
    return saved
  }
  if (!has('soffice', ['--version'], 'apt-get install libreoffice-calc')) return undefined
  const filter = format === 'csv' ? 'csv:Text - txt - csv (StarCalc):44,34,76' : 'xlsx:Calc MS Excel 2007 XML'
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${out}/profile`,
      '--headless',
      ...(extname(path) === '.csv' ? ['--infilter=CSV:44,34,76,1'] : []),
      '--convert-to',
      filter,
      '--outdir',
      out,
      path,
    ],
    {stdio: 'ignore', timeout: 120_000},
  )
  return join(
    out,
    readdirSync(out).find((name) => name.endsWith(`.${format}`))!,
  )
}

/** What pandas reads of a column: its dtype and values (as JSON gives them). */
interface PandasColumn {
  dtype: string
  values: unknown[]
}

/**
 * A CSV or workbook (its first sheet) as pandas reads it with its defaults (`read_csv`,
 * `read_excel`), the header on line `header` (1-based): each column's dtype and values; undefined
 * when Debian's python3 has no pandas.
 */
export function readByPandas(path: string, header = 1): Record<string, PandasColumn> | undefined {
  const python = '/usr/bin/python3'
  if (!has(python, ['-c', 'import pandas, openpyxl'], 'apt-get install python3-pandas python3-openpyxl'))
    return undefined
  const script = `
import json, sys, pandas
path, header = sys.argv[1], int(sys.argv[2]) - 1
frame = pandas.read_excel(path, header=header) if path.endswith('.xlsx') else pandas.read_csv(path, header=header)
print(json.dumps({str(c): {'dtype': str(frame[c].dtype), 'values': json.loads(frame[c].to_json(orient='values'))} for c in frame.columns}))
`
  return JSON.parse(execFileSync(python, ['-c', script, path, String(header)], {encoding: 'utf8'})) as Record<
    string,
    PandasColumn
  >
}
