import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installedPolicyObjects } from '../../src/cluster/admission-policies';
import { ApiError } from '../../src/cluster/errors';
import type { KubeClient } from '../../src/cluster/kube-client';

/** A client whose bindings list is refused before the policies list is: the order a real server may answer in. */
function refusingBoth(): KubeClient {
  const get = (path: string) =>
    new Promise((_resolve, reject) => {
      const bindings = path.includes('validatingadmissionpolicybindings');
      setTimeout(() => reject(new ApiError(403, 'Forbidden', path)), bindings ? 0 : 20);
    });
  return { get } as unknown as KubeClient;
}

test('when both lists are refused, the error is always the policies list’s, whichever answered first', async () => {
  await assert.rejects(installedPolicyObjects(refusingBoth()), (err: ApiError) => {
    assert.match(err.path, /validatingadmissionpolicies/);
    return true;
  });
});
