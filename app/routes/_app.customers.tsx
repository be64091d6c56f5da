import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { Plus } from 'lucide-react';
import { GeneralErrorBoundary } from '~/components/error-boundary';
import { DeniedBadge } from '~/components/ui/badges';
import { readCrmMenu } from '~/models/crm/menu.server';
import { MENU_NAME_LENGTH } from '~/models/meetings/constants';
import { pageTitle } from '~/utils/format';
import { can, canUseFeature, requireUser } from '~/utils/session.server';
import { AnchorLink, NavAnchor } from '~/components/ui/anchor-link';

/** The CRM side menu: Live View, Contacts and Companies with their segments (and a plus button), Meetings. */
export async function loader({ request }: LoaderFunctionArgs) {
  const ctx = await requireUser(request);
  const segmentsAllowed = canUseFeature(ctx, 'customerManagement/customerList');
  const meetingsAllowed = canUseFeature(ctx, 'chatMessenger/integratedMeetings');
  // The side menu's reads are one statement (ADRs 133, 136).
  const { segments, meetings, tagOptions } = await readCrmMenu({ accountId: ctx.account.id, segments: segmentsAllowed, meetings: meetingsAllowed });
  const { contact: contactSegments, company: companySegments } = segments;
  return {
    meetings,
    // The tag choices every CRM page offers (read with the menu): its pages take them with useCrmTagOptions.
    tagOptions,
    meetingsDenied: meetingsAllowed ? null : ('feature' as const),
    contactSegments,
    companySegments,
    segmentsDenied: segmentsAllowed ? null : ('feature' as const),
    liveViewDenied: canUseFeature(ctx, 'customerManagement/liveView') ? null : ('feature' as const),
    canManage: can(ctx, 'manage_contacts'),
  };
}

export const handle = { breadcrumb: 'CRM' };


export default function CustomersLayout() {
  const { contactSegments, companySegments, segmentsDenied, liveViewDenied, canManage, meetings, meetingsDenied } = useLoaderData<typeof loader>();
  return (
    <div className="settings">
      {/* The side menu is long: keyboard users pass it with this link (the shell's skip link lands on it). */}
      <a className="skip-link" href="#area-content">
        Skip the CRM menu
      </a>
      <nav className="side-menu" aria-label="CRM">
        <NavAnchor to="/customers/liveview">
          <span>Live View</span>
          {liveViewDenied ? <DeniedBadge kind={liveViewDenied} /> : null}
        </NavAnchor>
        <SegmentGroup
          label="Contacts"
          to="/customers"
          kind="contact"
          segments={contactSegments.map((s) => ({ id: s.id, name: s.name, to: `/customers/segment/${s.id}` }))}
          denied={segmentsDenied}
          canManage={canManage}
        />
        <SegmentGroup
          label="Companies"
          to="/customers/companies"
          kind="company"
          segments={companySegments.map((s) => ({ id: s.id, name: s.name, to: `/customers/companies/segment/${s.id}` }))}
          denied={segmentsDenied}
          canManage={canManage}
        />
        <details open data-testid="menu-meetings">
          <summary>Meetings {meetingsDenied ? <DeniedBadge kind="feature" /> : null}</summary>
          <NavAnchor to="/customers/meetings" end>
            <span>All Meetings</span>
          </NavAnchor>
          {meetings.map((m) => (
            <NavAnchor key={m.id} to={`/customers/meetings/${m.id}`} title={m.name}>
              {/* Names are cut to 17 characters in this menu (section 1). */}
              <span>{m.name.length > MENU_NAME_LENGTH ? `${m.name.slice(0, MENU_NAME_LENGTH)}…` : m.name}</span> <span className="badge">{m.totalBookings}</span>
            </NavAnchor>
          ))}
        </details>
      </nav>
      <div className="page" id="area-content" tabIndex={-1}>
        <Outlet />
      </div>
    </div>
  );
}

function SegmentGroup(props: {
  label: string;
  to: string;
  kind: 'contact' | 'company';
  segments: { id: number; name: string; to: string }[];
  denied: 'feature' | null;
  canManage: boolean;
}) {
  return (
    // The "new segment" link sits beside the summary, not inside it: a summary holds no other control.
    <div className="segment-group">
      <details open data-testid={`menu-${props.kind}`}>
        <summary>
          {props.label} {props.denied ? <DeniedBadge kind="feature" /> : !props.canManage ? <DeniedBadge kind="role" /> : null}
        </summary>
        <NavAnchor to={props.to} end>
          <span>{props.kind === 'contact' ? 'All Contacts' : 'All Companies'}</span>
        </NavAnchor>
        {props.segments.map((s) => (
          <NavAnchor key={s.id} to={s.to}>
            <span>{s.name}</span>
          </NavAnchor>
        ))}
      </details>
      <AnchorLink
        to={`/customers/segments/new?kind=${props.kind}`}
        className="btn btn-link segment-new"
        aria-label={props.kind === 'contact' ? 'New contact segment' : 'New company segment'}
        title={props.denied ? undefined : props.canManage ? 'New segment' : undefined}
      >
        <Plus aria-hidden="true" size={16} />
      </AnchorLink>
    </div>
  );
}

export const meta: MetaFunction = () => [{ title: pageTitle('CRM') }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
