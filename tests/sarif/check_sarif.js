// check_sarif.js - the checks sarif_validate.sh runs with node (which the multitool's
// npm install needs anyway, so the test adds no other dependency).
//
//   node check_sarif.js validator-log LOG.sarif
//       LOG.sarif is what `Sarif.Multitool validate --output` wrote. Prints every result and
//       fails on any error-level one, and on a run that did not complete (the multitool
//       exits 0 even when the file it validated has errors, so its log is the verdict).
//   node check_sarif.js matches REPORT.json HOTSCAN.sarif
//       The SARIF says what the report says: one result per finding with the same rule,
//       level, region, fingerprint, related places, hot path and verified edits; the
//       invocation (command line, arguments, exit code, working directory) and one
//       notification per error, then per note; the SRCROOT base is the report's root. Each
//       rule's help.markdown is its doc page (docs/rules/<rule>.md, read from the current
//       directory), its links into the docs absolute under tool.docs_url or reduced to text,
//       helpUri only with a docs_url, and properties.precision the one the page states.
'use strict';
const fs = require('fs');
const { fileURLToPath } = require('url');

let failures = 0;
function fail(msg) {
  console.error(`check_sarif: ${msg}`);
  failures++;
}
function expect(cond, msg) {
  if (!cond) fail(msg);
}
function load(path) {
  return JSON.parse(fs.readFileSync(path, 'utf8'));
}

function validatorLog(path) {
  const log = load(path);
  const run = (log.runs || [])[0];
  if (!run) return fail(`${path}: no run in the validator's log`);
  const rules = (run.tool && run.tool.driver && run.tool.driver.rules) || [];
  const byId = new Map(rules.map((r) => [r.id, r]));
  let errors = 0;
  for (const res of run.results || []) {
    // A result without a level has its rule's default level, and SARIF's default is warning.
    const rule = (res.ruleIndex !== undefined && rules[res.ruleIndex]) || byId.get(res.ruleId);
    const level = res.level || (rule && rule.defaultConfiguration && rule.defaultConfiguration.level) || 'warning';
    const m = res.message || {};
    let text = m.text;
    if (!text && m.id && rule && rule.messageStrings && rule.messageStrings[m.id])
      text = rule.messageStrings[m.id].text.replace(/\{(\d+)\}/g, (_, n) => (m.arguments || [])[n]);
    const at = (res.locations || []).map((l) => l.physicalLocation && l.physicalLocation.region)
      .filter(Boolean).map((g) => `(${g.startLine},${g.startColumn || 0})`).join('');
    console.log(`  validator ${level} ${res.ruleId}${at}: ${text || JSON.stringify(m)}`);
    if (level === 'error') errors++;
  }
  for (const inv of run.invocations || []) {
    for (const n of [...(inv.toolExecutionNotifications || []), ...(inv.toolConfigurationNotifications || [])]) {
      console.log(`  validator notification ${n.level || 'warning'}: ${n.message && n.message.text}`);
      if ((n.level || 'warning') === 'error') errors++;
    }
    if (inv.executionSuccessful !== true) fail(`${path}: the validator's run did not complete`);
  }
  expect(errors === 0, `${path}: ${errors} error(s) from the SARIF validator`);
}

const sameJSON = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const PRECISIONS = ['very-high', 'high', 'medium', 'low'];

// The rule's doc page and the precision its "## Precision" section states, or undefined for
// a rule without a page (one this build does not know).
function rulePage(id) {
  const path = `docs/rules/${id}.md`;
  if (!fs.existsSync(path)) return undefined;
  const text = fs.readFileSync(path, 'utf8');
  const m = /^## Precision\n\n[^]*?\*\*([a-z-]+)\*\*/m.exec(text);
  return { text, precision: m && m[1] };
}

function checkRuleHelp(r, docsUrl, w) {
  const page = rulePage(r.id);
  if (!page) return; // a rule this build does not know: a minimal descriptor
  const base = docsUrl ? docsUrl.replace(/\/$/, '') : undefined;
  expect(docsUrl ? r.helpUri === `${base}/rules/${r.id}.md` : r.helpUri === undefined,
         `${w}: helpUri ${r.helpUri} (docs_url ${docsUrl})`);
  expect(r.help.text.length < 2000 && !r.help.text.includes('](') , `${w}: help.text is not a short plain text`);
  expect(PRECISIONS.includes(r.properties.precision), `${w}: precision ${r.properties.precision}`);
  expect(page.precision && r.properties.precision === page.precision,
         `${w}: precision ${r.properties.precision}, but docs/rules/${r.id}.md says ${page.precision}`);
  const md = r.help.markdown;
  expect(md.startsWith(`# ${r.id}\n`), `${w}: help.markdown is not the doc page`);
  for (const heading of page.text.split('\n').filter((l) => l.startsWith('## ')))
    expect(md.includes(`\n${heading}\n`), `${w}: help.markdown lacks "${heading}"`);
  // The page with its links into the docs made absolute under docs_url, or reduced to text.
  const expected = page.text.replace(/\[([^\[\]]*)\]\(([A-Za-z0-9_.\/#-]+)\)/g, (all, text, target) => {
    const doc = target.startsWith('#') || /^[^#]*\.md(#|$)/.test(target);
    if (!doc || target.startsWith('/')) return all;
    if (!base) return text;
    const url = new URL(target, `${base}/rules/${r.id}.md`).href;
    return `[${text}](${url})`;
  });
  expect(md === expected, `${w}: help.markdown differs from docs/rules/${r.id}.md with its links resolved`);
}

function artifactPath(loc, where) {
  expect(loc && typeof loc.uri === 'string', `${where}: no artifactLocation.uri`);
  if (!loc || typeof loc.uri !== 'string') return undefined;
  if (loc.uri.startsWith('file:')) return fileURLToPath(loc.uri);
  expect(loc.uriBaseId === 'SRCROOT', `${where}: uriBaseId is ${loc.uriBaseId}, not SRCROOT`);
  expect(!/^[a-z][a-z0-9+.-]*:/i.test(loc.uri), `${where}: relative uri ${loc.uri} looks like it has a scheme`);
  return decodeURIComponent(loc.uri);
}

function matches(reportPath, sarifPath) {
  const report = load(reportPath);
  const raw = fs.readFileSync(sarifPath);
  expect(Buffer.from(raw.toString('utf8'), 'utf8').equals(raw), `${sarifPath}: not valid UTF-8`);
  const log = JSON.parse(raw.toString('utf8'));
  expect(log.version === '2.1.0', 'version is not 2.1.0');
  expect(log.$schema === 'https://json.schemastore.org/sarif-2.1.0.json', `$schema is ${log.$schema}`);
  expect(log.runs.length === 1, 'not exactly one run');
  const run = log.runs[0];
  const driver = run.tool.driver;
  expect(driver.name === 'hotscan', 'driver.name');
  expect(driver.version === report.tool.version && driver.semanticVersion === report.tool.version,
         'driver.version/semanticVersion differ from the report');
  for (const [i, r] of driver.rules.entries()) {
    const w = `rules[${i}] (${r.id})`;
    expect(typeof r.name === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(r.name), `${w}: name ${r.name}`);
    for (const k of ['shortDescription', 'fullDescription'])
      expect(r[k] && r[k].text, `${w}: no ${k}.text`);
    expect(r.help && r.help.text && r.help.markdown, `${w}: no help text and markdown`);
    expect(['error', 'warning', 'note'].includes(r.defaultConfiguration.level), `${w}: defaultConfiguration.level`);
    expect(r.properties && r.properties.tags.includes('performance'), `${w}: no performance tag`);
    checkRuleHelp(r, report.tool.docs_url, w);
  }
  const info = report.tool.docs_url && `${report.tool.docs_url.replace(/\/$/, '')}/hotscan.md`;
  expect(driver.informationUri === info, `informationUri ${driver.informationUri}, expected ${info}`);
  const ids = driver.rules.map((r) => r.id);
  expect(new Set(ids).size === ids.length, 'duplicate rule ids');

  const base = run.originalUriBaseIds && run.originalUriBaseIds.SRCROOT;
  expect(base && base.uri.endsWith('/'), 'SRCROOT uri missing or without a trailing slash');
  if (base) expect(fileURLToPath(base.uri) === report.root.replace(/\/?$/, '/'),
                   `SRCROOT ${base.uri} is not the root ${report.root}`);

  const findings = report.findings;
  expect(run.results.length === findings.length, `${run.results.length} results for ${findings.length} findings`);
  findings.forEach((f, i) => {
    const r = run.results[i];
    if (!r) return;
    const w = `results[${i}] (${f.rule} ${f.file}:${f.line})`;
    expect(r.ruleId === f.rule && ids[r.ruleIndex] === f.rule, `${w}: ruleId/ruleIndex`);
    expect(r.level === f.severity, `${w}: level ${r.level}`);
    expect(r.message.text.startsWith(f.message), `${w}: message`);
    const pl = r.locations[0].physicalLocation;
    expect(artifactPath(pl.artifactLocation, w) === f.file, `${w}: file`);
    expect(sameJSON(pl.region, { startLine: f.line, startColumn: f.column, endLine: f.end_line, endColumn: f.end_column }),
           `${w}: region ${JSON.stringify(pl.region)}`);
    expect(r.partialFingerprints && r.partialFingerprints['hotscan/v1'] === f.fingerprint, `${w}: fingerprint`);
    expect(r.properties.confidence === f.confidence, `${w}: properties.confidence`);
    const rel = r.relatedLocations || [];
    expect(rel.length === f.related.length, `${w}: ${rel.length} related locations`);
    f.related.forEach((x, k) => {
      const y = rel[k];
      if (!y) return;
      expect(y.id === k && artifactPath(y.physicalLocation.artifactLocation, w) === x.file &&
             y.physicalLocation.region.startLine === x.line && y.message.text.startsWith(x.message),
             `${w}: relatedLocations[${k}]`);
    });
    const flows = r.codeFlows || [];
    if (f.hot_path.length === 0) {
      expect(flows.length === 0, `${w}: a code flow without a hot path`);
    } else {
      const steps = flows.length === 1 && flows[0].threadFlows.length === 1 ? flows[0].threadFlows[0].locations : [];
      expect(steps.length === f.hot_path.length, `${w}: ${steps.length} thread flow steps for ${f.hot_path.length}`);
      f.hot_path.forEach((s, k) => {
        const loc = steps[k] && steps[k].location;
        if (!loc) return;
        expect(artifactPath(loc.physicalLocation.artifactLocation, w) === s.file &&
               loc.physicalLocation.region.startLine === s.line && loc.message.text === s.function,
               `${w}: thread flow step ${k}`);
      });
    }
    const verified = f.fixes.filter((x) => x.verified === true);
    const fixes = r.fixes || [];
    expect(fixes.length === verified.length, `${w}: ${fixes.length} fixes for ${verified.length} verified`);
    verified.forEach((x, k) => {
      const y = fixes[k];
      if (!y) return;
      expect(y.description.text.startsWith(x.description), `${w}: fixes[${k}].description`);
      const files = y.artifactChanges.map((c) => artifactPath(c.artifactLocation, w));
      expect(new Set(files).size === files.length, `${w}: fixes[${k}] has a file in two artifactChanges`);
      const got = y.artifactChanges.flatMap((c) => c.replacements.map((p) => ({
        file: artifactPath(c.artifactLocation, w), offset: p.deletedRegion.byteOffset,
        length: p.deletedRegion.byteLength, replacement: p.insertedContent ? p.insertedContent.text : '' })));
      for (const c of y.artifactChanges) {
        const offsets = c.replacements.map((p) => p.deletedRegion.byteOffset);
        expect(offsets.every((o, n) => n === 0 || offsets[n - 1] >= o),
               `${w}: fixes[${k}] replacements not listed from the end of the file (${offsets})`);
      }
      const key = (e) => JSON.stringify([e.file, e.offset, e.length, e.replacement]);
      expect(sameJSON(got.map(key).sort(), x.edits.map(key).sort()), `${w}: fixes[${k}] edits differ`);
    });
  });

  const inv = run.invocations[0];
  const errors = report.errors || [];
  const given = report.invocation;
  if (given) {
    expect(inv.commandLine === given.command_line, `commandLine ${inv.commandLine}`);
    expect(sameJSON(inv.arguments, given.arguments), `arguments ${JSON.stringify(inv.arguments)}`);
    expect(inv.exitCode === given.exit_code, `exitCode ${inv.exitCode}, the report says ${given.exit_code}`);
    expect(inv.executionSuccessful === given.execution_successful, 'executionSuccessful');
    expect(inv.workingDirectory && fileURLToPath(inv.workingDirectory.uri) === given.working_directory.replace(/\/?$/, '/'),
           `workingDirectory ${JSON.stringify(inv.workingDirectory)}`);
  } else {
    expect(inv.executionSuccessful === (errors.length === 0), 'executionSuccessful');
    expect(inv.exitCode === undefined && inv.commandLine === undefined, 'an invocation the report does not have');
  }
  const notes = inv.toolExecutionNotifications || [];
  const said = (given && given.notes) || [];
  expect(notes.length === errors.length + said.length,
         `${notes.length} notifications for ${errors.length} errors and ${said.length} notes`);
  errors.forEach((e, k) => {
    const n = notes[k];
    if (!n) return;
    expect(n.level === 'error' && n.message.text.startsWith(e.message) &&
           artifactPath(n.locations[0].physicalLocation.artifactLocation, 'notification') === e.file,
           `toolExecutionNotifications[${k}]`);
  });
  said.forEach((x, k) => {
    const n = notes[errors.length + k];
    if (!n) return;
    expect(n.level === x.level && n.message.text.startsWith(x.message) && !n.locations,
           `toolExecutionNotifications[${errors.length + k}] (${x.level}: ${x.message})`);
  });
  if (failures === 0)
    console.log(`  ${sarifPath}: ${run.results.length} results, ${notes.length} notifications match ${reportPath}`);
}

const [mode, a, b] = process.argv.slice(2);
try {
  if (mode === 'validator-log') validatorLog(a);
  else if (mode === 'matches') matches(a, b);
  else fail(`unknown mode ${mode}`);
} catch (e) {
  fail(`${mode} ${a}${b ? ' ' + b : ''}: ${e.stack || e}`);
}
process.exit(failures ? 1 : 0);
