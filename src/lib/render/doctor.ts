/** The doctor's checklist for people: a mark per check, advice under what did not pass. */
import type {DoctorReport} from '../profiles/doctor.js'
import {dim, green, red, yellow} from './style.js'

const MARK = {pass: () => green('✔'), warn: () => yellow('!'), fail: () => red('✘'), skip: () => dim('-')}

export function doctorView(report: DoctorReport): string {
  const lines: string[] = []
  for (const check of report.checks) {
    lines.push(`${MARK[check.verdict]()} ${check.name}: ${check.detail}`)
    if (check.advice && check.verdict !== 'pass') lines.push(`    ${check.advice}`)
  }
  lines.push(report.ok ? 'All checks passed.' : 'Some checks failed; see the advice above.')
  return lines.join('\n')
}
