import { queryTable, type QueryCase } from '../helpers/query-table.ts';

/**
 * `$regex` (spec 4.2) with `$options` i, m, s and x and the Parse SDKs' `\Q…\E` quoting, and
 * `$text` full-text search. Regular expressions mean what they mean in JavaScript (and in the
 * PCRE of MongoDB, which Parse clients were written against) on both backends: the ones
 * PostgreSQL would read otherwise are translated, the ones that cannot be are refused (102).
 */

const regex = (field: string, pattern: string, options?: string) => ({ [field]: options === undefined ? { $regex: pattern } : { $regex: pattern, $options: options } });
/** What the Parse SDKs send for startsWith, endsWith and contains. */
const quote = (text: string) => `\\Q${text.replace(/\\E/g, '\\E\\\\E\\Q')}\\E`;
const search = (term: string, extra: Record<string, unknown> = {}) => ({ body: { $text: { $search: { $term: term, ...extra } } } });
const withBody = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];

const CASES: QueryCase[] = [
  // Anchors, prefixes and case
  { title: 'a literal prefix', where: regex('name', '^al'), expect: ['alpha'] },
  { title: 'a prefix with an escaped character', where: regex('body', '^Price: \\$5'), expect: ['foxtrot'] },
  { title: 'a prefix whose last letter is optional', where: regex('body', '^Lorem?'), expect: ['bravo'] },
  { title: 'an alternation after the anchor', where: regex('body', '^(Lorem|Zebra)'), expect: ['bravo', 'india'] },
  { title: 'a suffix', where: regex('name', 'o$'), expect: ['bravo', 'echo', 'kilo'] },
  { title: 'anywhere in the string', where: regex('name', 'li'), expect: ['charlie', 'juliet', 'lima'] },
  { title: 'an empty pattern matches every string', where: regex('body', ''), expect: withBody },
  { title: 'case-sensitive by default', where: regex('name', '^A'), expect: [] },
  { title: 'option i', where: regex('name', '^A', 'i'), expect: ['alpha'] },
  { title: 'option i in the middle of a text', where: regex('body', 'QUICK', 'i'), expect: ['alpha', 'charlie', 'delta'] },
  { title: 'option i beyond ASCII', where: regex('body', 'école', 'i'), expect: ['echo'] },
  { title: 'a lazy quantifier', where: regex('body', 'q.*?k'), expect: ['alpha', 'delta'] },
  { title: 'the end of a long text', where: regex('body', 'needle$'), expect: ['india'] },

  // Lines: m and s, and what "." and [^…] do with a line break
  { title: 'without m, ^ and $ are the ends of the text', where: regex('body', '^line two$'), expect: [] },
  { title: 'option m: ^ and $ at line breaks', where: regex('body', '^line two$', 'm'), expect: ['golf'] },
  { title: 'option m: $ before a line break', where: regex('body', 'amet,$', 'm'), expect: ['bravo'] },
  { title: 'option m: the last line', where: regex('body', '^LINE', 'm'), expect: ['golf'] },
  { title: 'without s, . does not match a line break', where: regex('body', 'one.line'), expect: [] },
  { title: 'option s: . matches a line break', where: regex('body', 'one.line', 's'), expect: ['golf'] },
  { title: 'a negated class matches a line break', where: regex('body', 'one[^x]line'), expect: ['golf'] },
  { title: '\\s matches a line break', where: regex('body', 'one\\sline'), expect: ['golf'] },
  { title: 'options m and s together', where: regex('body', '^line one.line two$', 'ms'), expect: ['golf'] },

  // x: free spacing
  { title: 'option x drops spaces and comments', where: regex('body', '^ L o r e m   # the first word\n', 'x'), expect: ['bravo'] },
  { title: 'option x keeps escaped spaces', where: regex('body', 'ipsum\\ dolor', 'x'), expect: ['bravo'] },
  { title: 'option x keeps spaces in a class', where: regex('body', 'ipsum[ ]dolor', 'x'), expect: ['bravo'] },

  // \Q…\E quoting, as the SDKs send startsWith, endsWith and contains
  { title: 'startsWith', where: regex('body', `^${quote('Price: $5.00')}`), expect: ['foxtrot'] },
  { title: 'contains, with regex characters', where: regex('body', quote('(a.b*c) [x]')), expect: ['foxtrot'] },
  { title: 'contains, ignoring case', where: regex('body', quote('QUICK'), 'i'), expect: ['alpha', 'charlie', 'delta'] },
  { title: 'endsWith, with \\E in the text', where: regex('body', `${quote('back\\Eslash')}$`), expect: ['foxtrot'] },
  { title: 'quoted spaces stay under option x', where: regex('body', quote('ipsum dolor'), 'x'), expect: ['bravo'] },
  { title: 'unquoted, the same brackets are a class', where: regex('body', '[x]'), expect: ['alpha', 'charlie', 'foxtrot', 'hotel'] },

  // Escapes and classes mean what they mean in JavaScript
  { title: '\\d and an escaped dot', where: regex('body', '\\d+\\.\\d+'), expect: ['foxtrot', 'hotel'] },
  { title: '\\w is ASCII', where: regex('body', 'caf\\w'), expect: [] },
  { title: '. matches a letter beyond ASCII', where: regex('body', 'caf.$'), expect: [] },
  { title: '. matches a letter beyond ASCII in the middle', where: regex('body', 'caf. na'), expect: ['echo'] },
  { title: '\\b is a word boundary', where: regex('body', '\\bfox\\b'), expect: ['alpha'] },
  { title: '\\B is not a word boundary', where: regex('body', 'qu\\B'), expect: ['alpha', 'delta'] },
  { title: '\\W is not a word character', where: regex('body', 'state\\Wof'), expect: ['hotel'] },
  { title: 'POSIX classes are ASCII', where: regex('body', '^[[:upper:]][[:lower:]]+ [[:lower:]]'), expect: ['alpha', 'bravo', 'charlie', 'delta', 'india'] },
  { title: 'a named group', where: regex('body', '(?<n>o)ne'), expect: ['golf'] },
  { title: 'a back-reference', where: regex('body', '(l)\\1'), expect: ['india'] },
  { title: 'a named back-reference', where: regex('body', '(?<double>[lr])\\k<double>'), expect: ['india'] },
  { title: 'a lookbehind', where: regex('body', '(?<=\\$)5'), expect: ['foxtrot'] },
  { title: 'a brace that is not a quantifier', where: regex('body', 'a{b'), expect: [] },
  { title: '\\x escapes take two digits', where: regex('body', '\\x41m'), expect: [] },
  { title: '\\x escape of a letter', where: regex('body', '\\x4corem'), expect: ['bravo'] },

  // Fields that are not strings
  { title: 'a Number field matches no pattern', where: regex('score', '1'), expect: [] },
  { title: 'dot notation: only strings match', where: regex('meta.color', '^r'), expect: ['alpha', 'delta', 'foxtrot'] },
  { title: 'dot notation: option i', where: regex('meta.color', '^R', 'i'), expect: ['alpha', 'delta', 'echo', 'foxtrot'] },
  { title: 'dot notation: a string among numbers', where: regex('meta.level', 'h'), expect: ['golf'] },
  { title: 'an Object field is not a string', where: regex('meta', 'color'), expect: [] },
  { title: 'an Array matches when one of its strings does', where: regex('tags', '^r'), expect: ['alpha', 'charlie', 'foxtrot'] },
  { title: 'an Array with option i', where: regex('tags', '^R', 'i'), expect: ['alpha', 'charlie', 'echo', 'foxtrot'] },
  { title: 'an Array: numbers in it are not strings', where: regex('tags', '3'), expect: [] },
  { title: '$regex beside other constraints', where: { ...regex('body', 'quick', 'i'), active: true }, expect: ['alpha', 'charlie'] },
  { title: '$regex inside $or', where: { $or: [regex('name', '^al'), regex('name', '^br')] }, expect: ['alpha', 'bravo'] },
  { title: '$regex with $ne on the same key', where: { name: { $regex: '^[a-c]', $ne: 'bravo' } }, expect: ['alpha', 'charlie'] },

  // $text: every word of the term occurs as a word of the field, in any case
  { title: '$text: one word', where: search('quick'), expect: ['alpha', 'charlie'] },
  { title: '$text: every word must occur', where: search('quick fox'), expect: ['alpha'] },
  { title: '$text: case does not matter', where: search('LAZY dogs'), expect: ['charlie'] },
  { title: '$text: letters beyond ASCII', where: search('CAFÉ école'), expect: ['echo'] },
  { title: '$text: far into a long text', where: search('needle zebra'), expect: ['india'] },
  { title: '$text: words split at punctuation', where: search('a.b'), expect: ['foxtrot'] },
  { title: '$text: words split at underscores', where: search('foo'), expect: ['hotel'] },
  { title: '$text: words split in an e-mail address', where: search('example'), expect: ['hotel'] },
  { title: '$text: digits after a point', where: search('14'), expect: ['hotel'] },
  { title: '$text: a hyphenated term', where: search('state-of-the-art'), expect: ['hotel'] },
  { title: '$text: a term without words matches nothing', where: search('...'), expect: [] },
  { title: '$text: $language is accepted', where: search('quick', { $language: 'english' }), expect: ['alpha', 'charlie'] },
  { title: '$text: $language does not stem', where: search('foxes', { $language: 'english' }), expect: ['charlie'] },
  { title: '$text: $language keeps every word', where: search('the', { $language: 'english' }), expect: ['alpha', 'hotel'] },
  { title: '$text: $caseSensitive false is accepted', where: search('Quick', { $caseSensitive: false }), expect: ['alpha', 'charlie'] },
  { title: '$text beside other constraints', where: { ...search('quick'), score: { $gt: 10 } }, expect: ['charlie'] },
  { title: '$text on a field without text', where: { name: { $text: { $search: { $term: 'quick' } } } }, expect: [] },
];

queryTable('query regex and text', CASES);
