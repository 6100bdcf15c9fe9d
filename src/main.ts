/**
 * The entry of the bundled build: oclif's execute, from the one copy of oclif the bundle holds
 * (the commands, the help class and the hook share it), for bin/run.js and bin/dev.js.
 */
export {execute} from '@oclif/core'
