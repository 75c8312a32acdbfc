// The cloud code of the `function` workload (bench/workloads.ts): the cost of the worker boundary.
Parse.Cloud.define('hello', () => 'Hello world!');
