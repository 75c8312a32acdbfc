import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { oauth1Header, percentEncode } from './twitter.ts';

/** The worked example of Twitter's "Creating a signature" guide for OAuth 1.0a requests. */
describe('OAuth 1.0a signing', () => {
  it('reproduces the signature of the published example request', () => {
    const header = oauth1Header({
      method: 'POST',
      url: 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
      bodyParams: { status: 'Hello Ladies + Gentlemen, a signed OAuth request!' },
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
      consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
      timestamp: 1318622958,
    });
    assert.match(header, /^OAuth /);
    const signature = /oauth_signature="([^"]+)"/.exec(header)?.[1];
    assert.equal(decodeURIComponent(signature!), 'hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
    assert.match(header, /oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"/);
  });

  it('percent-encodes as RFC 3986 asks, also the characters encodeURIComponent keeps', () => {
    assert.equal(percentEncode("Ladies + Gentlemen!*'()~._-"), 'Ladies%20%2B%20Gentlemen%21%2A%27%28%29~._-');
    assert.equal(percentEncode('☃'), '%E2%98%83');
  });
});
