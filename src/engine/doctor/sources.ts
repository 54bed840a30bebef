/**
 * Where each host configuration rule comes from (DoctorCheck.source): upstream files and pages an
 * admin can open. One list, so a rule and its README row cite the same text.
 */
export const SOURCES = {
  kubeletStartup:
    'kubernetes pkg/volume/iscsi/iscsi_util.go AttachDisk sets node.startup manual (docs/kubelet-iscsi.md#attachdisk); open-iscsi etc/iscsid.conf',
  openIscsiMultipath:
    'open-iscsi README section 8.1 "iSCSI settings for dm-multipath" and section 8.1.4 "Optimal replacement_timeout Value"; Red Hat Online Storage Reconfiguration Guide, https://docs.redhat.com/en/documentation/Red_Hat_Enterprise_Linux/5/html/Online_Storage_Reconfiguration_Guide/iscsi-replacements_timeout.html',
  noopOut:
    'open-iscsi README section 8.1.1 "iSCSI ping/Nop-Out settings" and section 8.2 (pings off only for iSCSI root); etc/iscsid.conf',
  tridentFindMultipaths:
    'NetApp/trident utils/iscsi/iscsi.go PreChecks (attach refused for yes/smart), internal/nodeprep/step/configure_multipathd.go (requires no); https://docs.netapp.com/us-en/trident/trident-get-started/requirements.html',
  noPathRetry:
    'multipath-tools multipath/multipath.conf.5 (no_path_retry, queue_if_no_path, KNOWN ISSUES); open-iscsi README section 8.1',
  devLossTmo:
    'multipath-tools multipath/multipath.conf.5 (dev_loss_tmo: "only applied to Fibre Channel and SAS devices")',
  longhornMultipath:
    'https://longhorn.io/kb/troubleshooting-volume-with-multipath (https://github.com/longhorn/website/blob/master/content/kb/troubleshooting-volume-with-multipath.md), longhorn/longhorn#1210',
  localDiskMultipath: 'multipath-tools multipath/multipath.conf.5 (find_multipaths, blacklist)',
  initiatorUnique:
    'RFC 3720 section 3.2.6 (a name is unique per initiator); open-iscsi etc/Makefile install_iname and etc/systemd/iscsi-init.service (generated once, at install); rancher/os#2446, gardenlinux/gardenlinux#3188, agama-project/agama#2606 (names baked into images)',
} as const;
