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
  const warned = report.checks.filter((c) => c.verdict === 'warn').length
  lines.push(
    !report.ok
      ? 'Some checks failed; see the advice above.'
      : warned
        ? `The checks passed but ${warned === 1 ? 'one needs' : `${warned} need`} a look: see the advice above.`
        : 'All checks passed.',
  )
  return lines.join('\n')
}

/** The doctor run on a profile just saved: its checklist, and when it fails, that the profile is kept and what to run. */
export function savedProfileCheck(report: DoctorReport, name: string): {text: string; notes: string[]} {
  const notes = report.ok
    ? []
    : [
        `The profile "${name}" is saved as given; fix what failed (gw profile set ${name} ...), then check again: gw doctor --profile ${name}`,
      ]
  return {
    text: `Checking it against the gateway (gw doctor):\n${doctorView(report)}`,
    notes,
  }
}
