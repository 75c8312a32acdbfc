// The cloud code of the `function` workload (bench/workloads.ts): the cost of the worker boundary.
Parse.Cloud.define('hello', () => 'Hello world!');
// The `create-before-save` workload: the cost of a trigger call on every create.
Parse.Cloud.beforeSave('BenchTriggered', () => {});
