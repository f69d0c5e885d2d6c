import type { RouteDefinition } from '#api/http/route.ts';
import exchangeConsoleLink from './console/exchangeConsoleLink.ts';
import activateContractFunction from './contract/activateContractFunction.ts';
import deactivateContractFunction from './contract/deactivateContractFunction.ts';
import getContractActivatedFunctions from './contract/getContractActivatedFunctions.ts';
import getContracts from './contract/getContracts.ts';
import importContract from './contract/importContract.ts';
import createSubscription from './eventNotifier/createSubscription.ts';
import getRecords from './eventNotifier/getRecords.ts';
import getSubscriptions from './eventNotifier/getSubscriptions.ts';
import resendFailedWebhook from './eventNotifier/resendFailedWebhook.ts';
import updateSubscriptionWebhook from './eventNotifier/updateSubscriptionWebhook.ts';
import getProjectDetail from './project/getProjectDetail.ts';
import getProjectMembers from './project/getProjectMembers.ts';
import getProjects from './project/getProjects.ts';
import getStatistics from './project/getStatistics.ts';
import rotateApiKey from './project/rotateApiKey.ts';
import executeTransaction from './transaction/executeTransaction.ts';
import getTransaction from './transaction/getTransaction.ts';
import getTransactions from './transaction/getTransactions.ts';

/** The 19 operations of the Public API v3, in the order the reference shows them. */
export const routes = [
  getProjects,
  getProjectDetail,
  getProjectMembers,
  rotateApiKey,
  getStatistics,
  exchangeConsoleLink,
  createSubscription,
  getSubscriptions,
  updateSubscriptionWebhook,
  getRecords,
  resendFailedWebhook,
  getContracts,
  importContract,
  activateContractFunction,
  deactivateContractFunction,
  getContractActivatedFunctions,
  executeTransaction,
  getTransaction,
  getTransactions,
] as unknown as RouteDefinition[];
