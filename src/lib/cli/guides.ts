/**
 * The guides of docs/, by reader, printed offline by `gw help GUIDE`: the same pages the README
 * links, read from where gw is installed (the package ships docs/, the executable unpacks them
 * beside its bundle), so the text a terminal shows is the text the repository tests.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

/** Each guide, in the order `gw help` lists them, with what its reader finds there. */
export const GUIDES = {
  support: 'investigate an order: any of its numbers, its story, its refunds, on any desk',
  finance: 'refunds one at a time or in bulk from CSV or Excel, reconcile, the files gw reads and writes',
  developers: 'profiles and doctor, notifications, your SDK against the sandbox, production keys',
  conventions: 'what every command keeps: times, amounts, --json, exit codes, the environment',
  security: 'keys, the listener, the files gw writes, and the history it keeps',
  install: 'handing gw out: the package and the executables, checking, upgrading, removing',
  contributing: 'changing gw: building, the tiers of tests, benchmarks',
  architecture: 'how gw is built: from a command to a signed request and back, the import picture',
  design: "gw's contract, where it departed from its first draft, and what it decides where the API document is silent",
} as const

export type Guide = keyof typeof GUIDES

export const isGuide = (word: string): word is Guide => Object.hasOwn(GUIDES, word)

/** Where gw installed at `root` keeps a guide. */
export const guideFile = (root: string, guide: Guide): string => join(root, 'docs', `${guide}.md`)

/**
 * A guide as a terminal shows it: its markdown, without the marks the tests read, each link said
 * as where to read it offline (another guide by its `gw help`, the reference by `gw help --all`).
 */
export function guideText(root: string, guide: Guide): string {
  return (
    readFileSync(guideFile(root, guide), 'utf8')
      .replace(/^<!--[^\n]*-->\n\n/gm, '')
      // A picture (the desk's screenshot) is said by what it shows, and where it is in the package.
      .replace(/!\[([^\]]+)\]\(([^)\s]+)\)/g, (_, alt: string, file: string) => `[A picture, docs/${file}: ${alt}.]`)
      .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, text: string, target: string) => `${text}${whereOffline(target)}`)
  )
}

function whereOffline(target: string): string {
  const page = /^(?:\.\/)?([a-z]+)\.md(?:#.*)?$/.exec(target)?.[1]
  if (page === 'commands') return ' (gw help --all)'
  if (page && isGuide(page)) return ` (gw help ${page})`
  return /^[a-z]+:/i.test(target) ? ` (${target})` : ''
}
