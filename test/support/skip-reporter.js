/**
 * A jest reporter that lists, after the run, every skipped test, grouped by reason and file. Nothing
 * in the suites skips (test/support/requirements.ts fails a suite whose requirement is missing), so
 * anything listed here is an `it.skip` or `describe.skip` someone left in a file.
 */
const path = require('node:path');

const MARK = /\[skipped: (.*)\]$/;

class SkipReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    // With -t, the tests left out by the name filter are reported as skipped too: not listed then.
    this.filtered = Boolean(globalConfig.testNamePattern);
    /** reason -> file -> number of tests */
    this.skips = new Map();
  }

  onTestResult(_test, result) {
    const file = path.relative(this.rootDir, result.testFilePath);
    for (const assertion of result.testResults) {
      if (assertion.status !== 'pending' && assertion.status !== 'skipped') continue;
      const marked = assertion.ancestorTitles.map((t) => MARK.exec(t)).find(Boolean);
      if (!marked && this.filtered) continue;
      const reason = marked ? marked[1] : 'skipped without a reason (it.skip or describe.skip in the file)';
      const files = this.skips.get(reason) ?? new Map();
      files.set(file, (files.get(file) ?? 0) + 1);
      this.skips.set(reason, files);
    }
  }

  onRunComplete() {
    if (this.skips.size === 0) return;
    const lines = ['', 'Skipped tests, by reason:'];
    for (const [reason, files] of this.skips) {
      lines.push(`  ${reason}`);
      for (const [file, n] of files) lines.push(`    ${file}: ${n} test${n === 1 ? '' : 's'}`);
    }
    process.stderr.write(`${lines.join('\n')}\n\n`);
  }
}

module.exports = SkipReporter;
