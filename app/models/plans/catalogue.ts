import type { PlanFeatures } from '../../../db/schema/accounts';

/**
 * Plan features by area (section 6 of the specification). A flag that a plan does not list is false.
 * Feature keys are written `area/flag`, e.g. `workflowAutomation/slaManagement`.
 */
export const FEATURE_AREAS = {
  analytics: ['enabled', 'sla', 'customerSatisfaction', 'teamPerformance', 'staffingPrediction'],
  /** webPush: push segments, the messenger's opt-in and push campaigns (ADR 114). */
  campaigns: ['enabled', 'chatMessaging', 'emailCampaigns', 'smsCampaigns', 'webPush'],
  channels: ['enabled', 'sms', 'chatPages'],
  chatMessenger: ['enabled', 'offlineExperience', 'integratedMeetings', 'conversionGoals', 'salesTracker'],
  /** aiHelp: the inbox's AI reply help calls an AI server (ADR 101); without it the same buttons suggest canned responses and articles. */
  conversation: ['enabled', 'aiHelp'],
  customerManagement: ['enabled', 'customerList', 'liveView'],
  customerSatisfactionSurveys: ['enabled', 'chatSurveys', 'emailSurveys'],
  integrations: ['enabled'],
  knowledgeBase: ['enabled', 'customJavascript', 'customCss', 'importExport', 'versionControl', 'backupRestore'],
  support: ['enabled', 'auditLogs'],
  teamManagement: ['enabled', 'teams', 'customRoles'],
  workflowAutomation: ['enabled', 'advanceWorkflows', 'slaManagement'],
} as const;

export type FeatureArea = keyof typeof FEATURE_AREAS;
export type FeatureKey = {
  [A in FeatureArea]: `${A}/${(typeof FEATURE_AREAS)[A][number]}`;
}[FeatureArea];

export const NUMERIC_LIMITS = { 'workflowAutomation/advanceWorkflowsLimit': 'advanceWorkflowsLimit' } as const;

function all(limit: number): PlanFeatures {
  const features: PlanFeatures = {};
  for (const [area, flags] of Object.entries(FEATURE_AREAS)) {
    features[area] = Object.fromEntries(flags.map((f) => [f, true]));
  }
  features.workflowAutomation.advanceWorkflowsLimit = limit;
  return features;
}

function only(keys: FeatureKey[], limit = 0): PlanFeatures {
  const features: PlanFeatures = {};
  for (const key of keys) {
    const [area, flag] = key.split('/');
    features[area] ??= {};
    features[area][flag] = true;
  }
  features.workflowAutomation ??= {};
  features.workflowAutomation.advanceWorkflowsLimit = limit;
  return features;
}

const STARTER: FeatureKey[] = [
  'conversation/enabled',
  'support/enabled',
  'channels/enabled',
  'chatMessenger/enabled',
  'customerManagement/enabled',
  'knowledgeBase/enabled',
  'analytics/enabled',
  'workflowAutomation/enabled',
];

export const FREE_PLAN_KEY = 'free';

/** The plans every installation starts with. Inserted when missing; an operator may edit them in the database. */
type CataloguePlan = { key: string; name: string; features: PlanFeatures; sellable?: boolean; seatPriceMonthly?: number; seatPriceYearly?: number };

/** Prices are per seat (agent) in cents; an operator changes them with `parley plan price` (ADR 074). */
export const PLAN_CATALOGUE: CataloguePlan[] = [
  { key: 'trial', name: 'Trial', features: all(50) },
  { key: 'starter', name: 'Starter', features: only(STARTER), sellable: true, seatPriceMonthly: 1900, seatPriceYearly: 19000 },
  {
    key: 'growth',
    name: 'Growth',
    sellable: true,
    seatPriceMonthly: 4900,
    seatPriceYearly: 49000,
    features: only(
      [
        ...STARTER,
        'teamManagement/enabled',
        'teamManagement/teams',
        'teamManagement/customRoles',
        'customerManagement/customerList',
        'customerManagement/liveView',
        'campaigns/enabled',
        'campaigns/chatMessaging',
        'campaigns/emailCampaigns',
        'campaigns/webPush',
        'channels/sms',
        'channels/chatPages',
        'workflowAutomation/advanceWorkflows',
        'workflowAutomation/slaManagement',
        'customerSatisfactionSurveys/enabled',
        'customerSatisfactionSurveys/chatSurveys',
        'customerSatisfactionSurveys/emailSurveys',
        'integrations/enabled',
        'conversation/aiHelp',
      ],
      10,
    ),
  },
  { key: 'enterprise', name: 'Enterprise', features: all(1000), sellable: true, seatPriceMonthly: 9900, seatPriceYearly: 99000 },
  // What an account keeps when its trial runs out with billing on (ADR 036).
  { key: FREE_PLAN_KEY, name: 'Free', features: only(STARTER) },
];

export const TRIAL_DAYS = 14;

export function hasFeature(features: PlanFeatures, key: FeatureKey): boolean {
  const [area, flag] = key.split('/');
  return features[area]?.[flag] === true;
}

export function featureLimit(features: PlanFeatures, key: keyof typeof NUMERIC_LIMITS): number {
  const [area, flag] = key.split('/');
  const value = features[area]?.[flag];
  return typeof value === 'number' ? value : 0;
}

export { FEATURE_DENIED_MESSAGE } from '../shell/denied-messages';
