// gs_node.json's /webapi/embedded (lib/config/node-config.ts): off by default, so a node started
// by gs_startnode leaves the web API's port to a store-webapi process; on when set; anything but
// a boolean is refused naming the member, as every bad member is.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../../lib/config/config.ts';

describe('/webapi/embedded', () => {
  it('is false by default and true when set, with no problem or warning', () => {
    const defaults = readConfig({});
    assert.equal(defaults.config.node.webapi.embedded, false);
    const set = readConfig({ node: { webapi: { embedded: true } } });
    assert.deepEqual([set.problems, set.warnings], [[], []]);
    assert.equal(set.config.node.webapi.embedded, true);
  });

  it('refuses a value that is not a boolean, naming the member', () => {
    const { problems } = readConfig({ node: { webapi: { embedded: 'yes' } } });
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /^gs_node\.json \/webapi\/embedded: "yes" is not/);
  });
});
