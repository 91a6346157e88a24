import test from 'node:test';
import assert from 'node:assert/strict';
import camelCase from './index.js';

test('camelCase', t => {
	assert.strictEqual(camelCase('b2b_registration_request'), 'b2bRegistrationRequest');
	assert.strictEqual(camelCase('b2b-registration-request'), 'b2bRegistrationRequest');
	assert.strictEqual(camelCase('b2b_registration_b2b_request'), 'b2bRegistrationB2bRequest');
	assert.strictEqual(camelCase('foo'), 'foo');
	assert.strictEqual(camelCase('IDs'), 'ids');
	assert.strictEqual(camelCase('FooIDs'), 'fooIds');
	assert.strictEqual(camelCase('foo-bar'), 'fooBar');
	assert.strictEqual(camelCase('foo-bar-baz'), 'fooBarBaz');
	assert.strictEqual(camelCase('foo--bar'), 'fooBar');
	assert.strictEqual(camelCase('--foo-bar'), 'fooBar');
	assert.strictEqual(camelCase('--foo--bar'), 'fooBar');
	assert.strictEqual(camelCase('FOO-BAR'), 'fooBar');
	assert.strictEqual(camelCase('FOÈ-BAR'), 'foèBar');
	assert.strictEqual(camelCase('-foo-bar-'), 'fooBar');
	assert.strictEqual(camelCase('--foo--bar--'), 'fooBar');
	assert.strictEqual(camelCase('foo-1'), 'foo1');
	assert.strictEqual(camelCase('foo.bar'), 'fooBar');
	assert.strictEqual(camelCase('foo..bar'), 'fooBar');
	assert.strictEqual(camelCase('..foo..bar..'), 'fooBar');
	assert.strictEqual(camelCase('foo_bar'), 'fooBar');
	assert.strictEqual(camelCase('__foo__bar__'), 'fooBar');
	assert.strictEqual(camelCase('foo bar'), 'fooBar');
	assert.strictEqual(camelCase('  foo  bar  '), 'fooBar');
	assert.strictEqual(camelCase('-'), '');
	assert.strictEqual(camelCase(' - '), '');
	assert.strictEqual(camelCase('fooBar'), 'fooBar');
	assert.strictEqual(camelCase('fooBar-baz'), 'fooBarBaz');
	assert.strictEqual(camelCase('foìBar-baz'), 'foìBarBaz');
	assert.strictEqual(camelCase('fooBarBaz-bazzy'), 'fooBarBazBazzy');
	assert.strictEqual(camelCase('FBBazzy'), 'fbBazzy');
	assert.strictEqual(camelCase('F'), 'f');
	assert.strictEqual(camelCase('FooBar'), 'fooBar');
	assert.strictEqual(camelCase('Foo'), 'foo');
	assert.strictEqual(camelCase('FOO'), 'foo');
	assert.strictEqual(camelCase(['foo', 'bar']), 'fooBar');
	assert.strictEqual(camelCase(['foo', '-bar']), 'fooBar');
	assert.strictEqual(camelCase(['foo', '-bar', 'baz']), 'fooBarBaz');
	assert.strictEqual(camelCase(['', '']), '');
	assert.strictEqual(camelCase('--'), '');
	assert.strictEqual(camelCase(''), '');
	assert.strictEqual(camelCase('_'), '');
	assert.strictEqual(camelCase(' '), '');
	assert.strictEqual(camelCase('.'), '');
	assert.strictEqual(camelCase('..'), '');
	assert.strictEqual(camelCase('--'), '');
	assert.strictEqual(camelCase('  '), '');
	assert.strictEqual(camelCase('__'), '');
	assert.strictEqual(camelCase('--__--_--_'), '');
	assert.strictEqual(camelCase(['---_', '--', '', '-_- ']), '');
	assert.strictEqual(camelCase('foo bar?'), 'fooBar?');
	assert.strictEqual(camelCase('foo bar!'), 'fooBar!');
	assert.strictEqual(camelCase('foo bar$'), 'fooBar$');
	assert.strictEqual(camelCase('foo-bar#'), 'fooBar#');
	assert.strictEqual(camelCase('XMLHttpRequest'), 'xmlHttpRequest');
	assert.strictEqual(camelCase('AjaxXMLHttpRequest'), 'ajaxXmlHttpRequest');
	assert.strictEqual(camelCase('Ajax-XMLHttpRequest'), 'ajaxXmlHttpRequest');
	assert.strictEqual(camelCase([]), '');
	assert.strictEqual(camelCase('mGridCol6@md'), 'mGridCol6@md');
	assert.strictEqual(camelCase('A::a'), 'a::a');
	assert.strictEqual(camelCase('Hello1World'), 'hello1World');
	assert.strictEqual(camelCase('Hello11World'), 'hello11World');
	assert.strictEqual(camelCase('hello1world'), 'hello1World');
	assert.strictEqual(camelCase('Hello1World11foo'), 'hello1World11Foo');
	assert.strictEqual(camelCase('Hello1'), 'hello1');
	assert.strictEqual(camelCase('hello1'), 'hello1');
	assert.strictEqual(camelCase('1Hello'), '1Hello');
	assert.strictEqual(camelCase('1hello'), '1Hello');
	assert.strictEqual(camelCase('h2w'), 'h2W');
	assert.strictEqual(camelCase('розовый_пушистый-единороги'), 'розовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('розовый_пушистый-единороги'), 'розовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('РОЗОВЫЙ_ПУШИСТЫЙ-ЕДИНОРОГИ'), 'розовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('桑德在这里。'), '桑德在这里。');
	assert.strictEqual(camelCase('桑德在这里。'), '桑德在这里。');
	assert.strictEqual(camelCase('桑德_在这里。'), '桑德在这里。');
});

test('camelCase with pascalCase option', t => {
	assert.strictEqual(camelCase('b2b_registration_request', {pascalCase: true}), 'B2bRegistrationRequest');
	assert.strictEqual(camelCase('foo', {pascalCase: true}), 'Foo');
	assert.strictEqual(camelCase('foo-bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('foo-bar-baz', {pascalCase: true}), 'FooBarBaz');
	assert.strictEqual(camelCase('foo--bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('--foo-bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('--foo--bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('FOO-BAR', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('FOÈ-BAR', {pascalCase: true}), 'FoèBar');
	assert.strictEqual(camelCase('-foo-bar-', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('--foo--bar--', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('foo-1', {pascalCase: true}), 'Foo1');
	assert.strictEqual(camelCase('foo.bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('foo..bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('..foo..bar..', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('foo_bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('__foo__bar__', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('__foo__bar__', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('foo bar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('  foo  bar  ', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('-', {pascalCase: true}), '');
	assert.strictEqual(camelCase(' - ', {pascalCase: true}), '');
	assert.strictEqual(camelCase('fooBar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('fooBar-baz', {pascalCase: true}), 'FooBarBaz');
	assert.strictEqual(camelCase('foìBar-baz', {pascalCase: true}), 'FoìBarBaz');
	assert.strictEqual(camelCase('fooBarBaz-bazzy', {pascalCase: true}), 'FooBarBazBazzy');
	assert.strictEqual(camelCase('FBBazzy', {pascalCase: true}), 'FbBazzy');
	assert.strictEqual(camelCase('F', {pascalCase: true}), 'F');
	assert.strictEqual(camelCase('FooBar', {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase('Foo', {pascalCase: true}), 'Foo');
	assert.strictEqual(camelCase('FOO', {pascalCase: true}), 'Foo');
	assert.strictEqual(camelCase(['foo', 'bar'], {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase(['foo', '-bar'], {pascalCase: true}), 'FooBar');
	assert.strictEqual(camelCase(['foo', '-bar', 'baz'], {pascalCase: true}), 'FooBarBaz');
	assert.strictEqual(camelCase(['', ''], {pascalCase: true}), '');
	assert.strictEqual(camelCase('--', {pascalCase: true}), '');
	assert.strictEqual(camelCase('', {pascalCase: true}), '');
	assert.strictEqual(camelCase('--__--_--_', {pascalCase: true}), '');
	assert.strictEqual(camelCase(['---_', '--', '', '-_- '], {pascalCase: true}), '');
	assert.strictEqual(camelCase('foo bar?', {pascalCase: true}), 'FooBar?');
	assert.strictEqual(camelCase('foo bar!', {pascalCase: true}), 'FooBar!');
	assert.strictEqual(camelCase('foo bar$', {pascalCase: true}), 'FooBar$');
	assert.strictEqual(camelCase('foo-bar#', {pascalCase: true}), 'FooBar#');
	assert.strictEqual(camelCase('XMLHttpRequest', {pascalCase: true}), 'XmlHttpRequest');
	assert.strictEqual(camelCase('AjaxXMLHttpRequest', {pascalCase: true}), 'AjaxXmlHttpRequest');
	assert.strictEqual(camelCase('Ajax-XMLHttpRequest', {pascalCase: true}), 'AjaxXmlHttpRequest');
	assert.strictEqual(camelCase([], {pascalCase: true}), '');
	assert.strictEqual(camelCase('mGridCol6@md', {pascalCase: true}), 'MGridCol6@md');
	assert.strictEqual(camelCase('A::a', {pascalCase: true}), 'A::a');
	assert.strictEqual(camelCase('Hello1World', {pascalCase: true}), 'Hello1World');
	assert.strictEqual(camelCase('Hello11World', {pascalCase: true}), 'Hello11World');
	assert.strictEqual(camelCase('hello1world', {pascalCase: true}), 'Hello1World');
	assert.strictEqual(camelCase('hello1World', {pascalCase: true}), 'Hello1World');
	assert.strictEqual(camelCase('hello1', {pascalCase: true}), 'Hello1');
	assert.strictEqual(camelCase('Hello1', {pascalCase: true}), 'Hello1');
	assert.strictEqual(camelCase('1hello', {pascalCase: true}), '1Hello');
	assert.strictEqual(camelCase('1Hello', {pascalCase: true}), '1Hello');
	assert.strictEqual(camelCase('h1W', {pascalCase: true}), 'H1W');
	assert.strictEqual(camelCase('РозовыйПушистыйЕдинороги', {pascalCase: true}), 'РозовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('розовый_пушистый-единороги', {pascalCase: true}), 'РозовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('РОЗОВЫЙ_ПУШИСТЫЙ-ЕДИНОРОГИ', {pascalCase: true}), 'РозовыйПушистыйЕдинороги');
	assert.strictEqual(camelCase('桑德在这里。', {pascalCase: true}), '桑德在这里。');
	assert.strictEqual(camelCase('桑德_在这里。', {pascalCase: true}), '桑德在这里。');
	assert.strictEqual(camelCase('a1b', {pascalCase: true}), 'A1B');
});

test('camelCase with preserveConsecutiveUppercase option', t => {
	assert.strictEqual(camelCase('foo-BAR', {preserveConsecutiveUppercase: true}), 'fooBAR');
	assert.strictEqual(camelCase('Foo-BAR', {preserveConsecutiveUppercase: true}), 'fooBAR');
	assert.strictEqual(camelCase('fooBAR', {preserveConsecutiveUppercase: true}), 'fooBAR');
	assert.strictEqual(camelCase('fooBaR', {preserveConsecutiveUppercase: true}), 'fooBaR');
	assert.strictEqual(camelCase('FOÈ-BAR', {preserveConsecutiveUppercase: true}), 'FOÈBAR');
	assert.strictEqual(camelCase(['foo', 'BAR'], {preserveConsecutiveUppercase: true}), 'fooBAR');
	assert.strictEqual(camelCase(['foo', '-BAR'], {preserveConsecutiveUppercase: true}), 'fooBAR');
	assert.strictEqual(camelCase(['foo', '-BAR', 'baz'], {preserveConsecutiveUppercase: true}), 'fooBARBaz');
	assert.strictEqual(camelCase(['', ''], {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('--', {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('', {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('--__--_--_', {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase(['---_', '--', '', '-_- '], {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('foo BAR?', {preserveConsecutiveUppercase: true}), 'fooBAR?');
	assert.strictEqual(camelCase('foo BAR!', {preserveConsecutiveUppercase: true}), 'fooBAR!');
	assert.strictEqual(camelCase('foo BAR$', {preserveConsecutiveUppercase: true}), 'fooBAR$');
	assert.strictEqual(camelCase('foo-BAR#', {preserveConsecutiveUppercase: true}), 'fooBAR#');
	assert.strictEqual(camelCase('XMLHttpRequest', {preserveConsecutiveUppercase: true}), 'XMLHttpRequest');
	assert.strictEqual(camelCase('AjaxXMLHttpRequest', {preserveConsecutiveUppercase: true}), 'ajaxXMLHttpRequest');
	assert.strictEqual(camelCase('Ajax-XMLHttpRequest', {preserveConsecutiveUppercase: true}), 'ajaxXMLHttpRequest');
	assert.strictEqual(camelCase([], {preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('mGridCOl6@md', {preserveConsecutiveUppercase: true}), 'mGridCOl6@md');
	assert.strictEqual(camelCase('A::a', {preserveConsecutiveUppercase: true}), 'a::a');
	assert.strictEqual(camelCase('Hello1WORLD', {preserveConsecutiveUppercase: true}), 'hello1WORLD');
	assert.strictEqual(camelCase('Hello11WORLD', {preserveConsecutiveUppercase: true}), 'hello11WORLD');
	assert.strictEqual(camelCase('РозовыйПушистыйFOOдинорогиf', {preserveConsecutiveUppercase: true}), 'розовыйПушистыйFOOдинорогиf');
	assert.strictEqual(camelCase('桑德在这里。', {preserveConsecutiveUppercase: true}), '桑德在这里。');
	assert.strictEqual(camelCase('桑德_在这里。', {preserveConsecutiveUppercase: true}), '桑德在这里。');
	assert.strictEqual(camelCase('IDs', {preserveConsecutiveUppercase: true}), 'iDs');
	assert.strictEqual(camelCase('FooIDs', {preserveConsecutiveUppercase: true}), 'fooIDs');
});

test('camelCase with both pascalCase and preserveConsecutiveUppercase option', t => {
	assert.strictEqual(camelCase('foo-BAR', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR');
	assert.strictEqual(camelCase('fooBAR', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR');
	assert.strictEqual(camelCase('fooBaR', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBaR');
	assert.strictEqual(camelCase('fOÈ-BAR', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FOÈBAR');
	assert.strictEqual(camelCase('--foo.BAR', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR');
	assert.strictEqual(camelCase(['Foo', 'BAR'], {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR');
	assert.strictEqual(camelCase(['foo', '-BAR'], {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR');
	assert.strictEqual(camelCase(['foo', '-BAR', 'baz'], {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBARBaz');
	assert.strictEqual(camelCase(['', ''], {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('--', {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('', {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('--__--_--_', {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase(['---_', '--', '', '-_- '], {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('foo BAR?', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR?');
	assert.strictEqual(camelCase('foo BAR!', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR!');
	assert.strictEqual(camelCase('Foo BAR$', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR$');
	assert.strictEqual(camelCase('foo-BAR#', {pascalCase: true, preserveConsecutiveUppercase: true}), 'FooBAR#');
	assert.strictEqual(camelCase('xMLHttpRequest', {pascalCase: true, preserveConsecutiveUppercase: true}), 'XMLHttpRequest');
	assert.strictEqual(camelCase('ajaxXMLHttpRequest', {pascalCase: true, preserveConsecutiveUppercase: true}), 'AjaxXMLHttpRequest');
	assert.strictEqual(camelCase('Ajax-XMLHttpRequest', {pascalCase: true, preserveConsecutiveUppercase: true}), 'AjaxXMLHttpRequest');
	assert.strictEqual(camelCase([], {pascalCase: true, preserveConsecutiveUppercase: true}), '');
	assert.strictEqual(camelCase('mGridCOl6@md', {pascalCase: true, preserveConsecutiveUppercase: true}), 'MGridCOl6@md');
	assert.strictEqual(camelCase('A::a', {pascalCase: true, preserveConsecutiveUppercase: true}), 'A::a');
	assert.strictEqual(camelCase('Hello1WORLD', {pascalCase: true, preserveConsecutiveUppercase: true}), 'Hello1WORLD');
	assert.strictEqual(camelCase('Hello11WORLD', {pascalCase: true, preserveConsecutiveUppercase: true}), 'Hello11WORLD');
	assert.strictEqual(camelCase('pозовыйПушистыйFOOдинорогиf', {pascalCase: true, preserveConsecutiveUppercase: true}), 'PозовыйПушистыйFOOдинорогиf');
	assert.strictEqual(camelCase('桑德在这里。', {pascalCase: true, preserveConsecutiveUppercase: true}), '桑德在这里。');
	assert.strictEqual(camelCase('桑德_在这里。', {pascalCase: true, preserveConsecutiveUppercase: true}), '桑德在这里。');
});

test('camelCase with locale option', t => {
	assert.strictEqual(camelCase('lorem-ipsum', {locale: 'tr-TR'}), 'loremİpsum');
	assert.strictEqual(camelCase('lorem-ipsum', {locale: 'en-EN'}), 'loremIpsum');
	assert.strictEqual(camelCase('lorem-ipsum', {locale: ['tr', 'TR', 'tr-TR']}), 'loremİpsum');
	assert.strictEqual(camelCase('lorem-ipsum', {locale: ['en-EN', 'en-GB']}), 'loremIpsum');
	assert.strictEqual(camelCase('ipsum-dolor', {pascalCase: true, locale: 'tr-TR'}), 'İpsumDolor');
	assert.strictEqual(camelCase('ipsum-dolor', {pascalCase: true, locale: 'en-EN'}), 'IpsumDolor');
	assert.strictEqual(camelCase('ipsum-dolor', {pascalCase: true, locale: ['tr', 'TR', 'tr-TR']}), 'İpsumDolor');
	assert.strictEqual(camelCase('ipsum-dolor', {pascalCase: true, locale: ['en-EN', 'en-GB']}), 'IpsumDolor');
});

test('camelCase with disabled locale', t => {
	withLocaleCaseFunctionsMocked(() => {
		assert.strictEqual(camelCase('lorem-ipsum', {locale: false}), 'loremIpsum');
		assert.strictEqual(camelCase('ipsum-dolor', {pascalCase: true, locale: false}), 'IpsumDolor');
		assert.strictEqual(camelCase('ipsum-DOLOR', {pascalCase: true, locale: false, preserveConsecutiveUppercase: true}), 'IpsumDOLOR');
	});
});

test('invalid input', t => {
	assert.throws(() => {
		camelCase(1);
	}, {
		message: /Expected the input to be/,
	});
});

/* eslint-disable no-extend-native */
const withLocaleCaseFunctionsMocked = fn => {
	const throwWhenBeingCalled = () => {
		throw new Error('Should not be called');
	};

	const toLocaleUpperCase = Object.getOwnPropertyDescriptor(String.prototype, 'toLocaleUpperCase');
	const toLocaleLowerCase = Object.getOwnPropertyDescriptor(String.prototype, 'toLocaleLowerCase');

	Object.defineProperty(String.prototype, 'toLocaleUpperCase', {
		...toLocaleUpperCase,
		value: throwWhenBeingCalled,
	});
	Object.defineProperty(String.prototype, 'toLocaleLowerCase', {
		...toLocaleLowerCase,
		value: throwWhenBeingCalled,
	});

	try {
		fn();
	} finally {
		Object.defineProperty(String.prototype, 'toLocaleUpperCase', toLocaleUpperCase);
		Object.defineProperty(String.prototype, 'toLocaleLowerCase', toLocaleLowerCase);
	}
};
/* eslint-enable no-extend-native */
