import { AnchorLink } from '~/components/ui/anchor-link';
import { countryName } from '~/models/crm/countries';
import { formatDateTime, type DatePrefs } from '~/utils/format';
import { RecordList } from './record-list';

type ContactRow = {
  id: number;
  firstName: string;
  lastName: string;
  email: string | null;
  country: string | null;
  companyId: number | null;
  companyName: string | null;
  lastInteractionAt: string | Date | null;
  isFavourite: boolean;
  tags: { id: number; name: string; color: string }[];
};

/** All contacts or one contact segment: name, email, company, country, tags, interaction time. */
export function ContactTable(props: {
  action: string;
  postAction?: string;
  filters: { q: string; tag: number | null };
  tagOptions: { id: number; name: string }[];
  list: { rows: ContactRow[]; total: number; page: number; pageSize: number };
  locked: boolean;
  prefs: DatePrefs;
  formError?: string | null;
}) {
  return (
    <RecordList
      id="contacts"
      plural="contacts"
      {...props}
      columns={[
        {
          key: 'name',
          label: 'Name',
          sortable: true,
          cell: (r) => <AnchorLink to={`/customers/${r.id}`}>{`${r.firstName} ${r.lastName}`.trim() || r.email || `#${r.id}`}</AnchorLink>,
        },
        { key: 'email', label: 'Email', sortable: true, cell: (r) => r.email ?? '' },
        { key: 'company', label: 'Company', sortable: false, cell: (r) => (r.companyId ? <AnchorLink to={`/customers/companies/${r.companyId}`}>{r.companyName}</AnchorLink> : '') },
        { key: 'country', label: 'Country', sortable: true, cell: (r) => countryName(r.country) },
        { key: 'interaction', label: 'Interaction Time', sortable: true, cell: (r) => (r.lastInteractionAt ? formatDateTime(r.lastInteractionAt, props.prefs) : '—') },
      ]}
    />
  );
}
