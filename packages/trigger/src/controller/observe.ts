/** The group decoder lives in the assignor: the leader reads sibling groups with the very same rule. */
export { observeGroup, type ObservedGroup } from '@load-aware/assignor/internal';
