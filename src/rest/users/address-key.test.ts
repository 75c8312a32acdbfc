import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey } from './common.ts';

describe('the address a login limit counts', () => {
  it('is the IPv4 address itself, also when it arrives IPv4-mapped', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('is the /64 network of an IPv6 address, whatever its spelling', () => {
    const spellings = ['2001:db8:0:1::5', '2001:0db8:0000:0001:0000:0000:0000:0005', '2001:DB8:0:1:ffff:1:2:3', '2001:db8:0:1::', '2001:db8:0:1::5%eth0'];
    for (const ip of spellings) assert.equal(addressKey(ip), '2001:db8:0:1::/64', ip);
    assert.notEqual(addressKey('2001:db8:0:2::5'), addressKey('2001:db8:0:1::5'));
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
  });
});
